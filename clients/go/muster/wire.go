package muster

import (
	"encoding/json"
	"fmt"

	"muster.dev/clients/go/musterwire"
)

// WireType parses and serializes one generated type from musterwire.
type WireType struct {
	// Parse decodes JSON into the generated type (e.g. musterwire.TeamConfig).
	Parse func(data []byte) (any, error)
	// Serialize encodes a value Parse returned.
	Serialize func(value any) ([]byte, error)
}

func wireType[T any](unmarshal func([]byte) (T, error)) WireType {
	return WireType{
		Parse: func(data []byte) (any, error) {
			value, err := unmarshal(data)
			return value, err
		},
		Serialize: func(value any) ([]byte, error) {
			typed, ok := value.(T)
			if !ok {
				return nil, fmt.Errorf("expected a %T, got a %T", typed, value)
			}
			return json.Marshal(&typed)
		},
	}
}

// WireTypes maps every wire type of schemas/v1/index.json (except the ProtocolMessage
// union, dispatched by "type" instead) to its generated Go type.
var WireTypes = map[string]WireType{
	"AgentInput":                wireType(musterwire.UnmarshalAgentInput),
	"BackendType":               wireType(musterwire.UnmarshalBackendType),
	"IdleNotification":          wireType(musterwire.UnmarshalIdleNotification),
	"Inbox":                     wireType(musterwire.UnmarshalInbox),
	"InboxMessage":              wireType(musterwire.UnmarshalInboxMessage),
	"ModeSetRequest":            wireType(musterwire.UnmarshalModeSetRequest),
	"PermissionMode":            wireType(musterwire.UnmarshalPermissionMode),
	"PermissionRequest":         wireType(musterwire.UnmarshalPermissionRequest),
	"PermissionResponse":        wireType(musterwire.UnmarshalPermissionResponse),
	"PlanApprovalRequest":       wireType(musterwire.UnmarshalPlanApprovalRequest),
	"PlanApprovalResponse":      wireType(musterwire.UnmarshalPlanApprovalResponse),
	"SandboxPermissionRequest":  wireType(musterwire.UnmarshalSandboxPermissionRequest),
	"SandboxPermissionResponse": wireType(musterwire.UnmarshalSandboxPermissionResponse),
	"SendMessageInput":          wireType(musterwire.UnmarshalSendMessageInput),
	"ShutdownApproved":          wireType(musterwire.UnmarshalShutdownApproved),
	"ShutdownRejected":          wireType(musterwire.UnmarshalShutdownRejected),
	"ShutdownRequest":           wireType(musterwire.UnmarshalShutdownRequest),
	"Task":                      wireType(musterwire.UnmarshalTask),
	"TaskAssignment":            wireType(musterwire.UnmarshalTaskAssignment),
	"TaskCompleted":             wireType(musterwire.UnmarshalTaskCompleted),
	"TaskCreateInput":           wireType(musterwire.UnmarshalTaskCreateInput),
	"TaskGetInput":              wireType(musterwire.UnmarshalTaskGetInput),
	"TaskListInput":             wireType(musterwire.UnmarshalTaskListInput),
	"TaskStatus":                wireType(musterwire.UnmarshalTaskStatus),
	"TaskUpdateInput":           wireType(musterwire.UnmarshalTaskUpdateInput),
	"TeamAllowedPath":           wireType(musterwire.UnmarshalTeamAllowedPath),
	"TeamConfig":                wireType(musterwire.UnmarshalTeamConfig),
	"TeamCreateInput":           wireType(musterwire.UnmarshalTeamCreateInput),
	"TeamDeleteInput":           wireType(musterwire.UnmarshalTeamDeleteInput),
	"TeamMember":                wireType(musterwire.UnmarshalTeamMember),
	"TeamPermissionUpdate":      wireType(musterwire.UnmarshalTeamPermissionUpdate),
}

// MessageTypeNames maps a protocol message "type" to its wire type name, from index.json.
var MessageTypeNames = func() map[string]string {
	names := map[string]string{}
	types, _ := LoadIndex().Get("types")
	for _, item := range types.([]any) {
		entry := item.(*Object)
		if kind, _ := entry.String("kind"); kind == "message" {
			messageType, _ := entry.String("messageType")
			name, _ := entry.String("name")
			names[messageType] = name
		}
	}
	return names
}()

// ResolveWireTypeName turns "ProtocolMessage" into the message's own type (by its "type")
// and checks that the name exists.
func ResolveWireTypeName(name string, value any) (string, error) {
	if name == "ProtocolMessage" {
		object, _ := value.(*Object)
		var messageType string
		if object != nil {
			messageType, _ = object.String("type")
		}
		resolved, known := MessageTypeNames[messageType]
		if !known {
			return "", newError(CodeInvalidMessage, fmt.Sprintf("%q is not a protocol message type; known: %v.", messageType, sortedKeys(MessageTypeNames)),
				map[string]any{"type": messageType}, nil)
		}
		return resolved, nil
	}
	if _, known := WireTypes[name]; !known {
		return "", newError(CodeNotFound, fmt.Sprintf("There is no wire type named %q; known: %v.", name, sortedKeys(WireTypes)),
			map[string]any{"name": name}, nil)
	}
	return name, nil
}

// ParseWire decodes a JSON value (from ParseJSON) into its generated type.
func ParseWire(name string, value any) (any, error) {
	resolved, err := ResolveWireTypeName(name, value)
	if err != nil {
		return nil, err
	}
	text, err := FormatCompact(value)
	if err != nil {
		return nil, err
	}
	typed, err := WireTypes[resolved].Parse([]byte(text))
	if err != nil {
		return nil, newError(CodeInvalidMessage, fmt.Sprintf("The value does not fit the generated %s type: %v.", resolved, err),
			map[string]any{"type": resolved}, err)
	}
	return typed, nil
}
