package muster

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// KeyOrder is Claude Code's key order per message type ("type" comes first; unknown keys
// go last), from PROTOCOL.md section 7.
var KeyOrder = map[string][]string{
	"idle_notification":           {"from", "timestamp", "idleReason", "summary", "completedTaskId", "completedStatus", "failureReason"},
	"shutdown_request":            {"requestId", "from", "reason", "timestamp"},
	"shutdown_approved":           {"requestId", "from", "timestamp", "paneId", "backendType"},
	"shutdown_rejected":           {"requestId", "from", "reason", "timestamp"},
	"plan_approval_request":       {"from", "timestamp", "planFilePath", "planContent", "requestId"},
	"plan_approval_response":      {"requestId", "approved", "feedback", "timestamp", "permissionMode"},
	"permission_request":          {"request_id", "agent_id", "tool_name", "tool_use_id", "description", "input", "permission_suggestions"},
	"permission_response":         {"request_id", "subtype", "response", "error"},
	"sandbox_permission_request":  {"requestId", "workerId", "workerName", "workerColor", "hostPattern", "createdAt"},
	"sandbox_permission_response": {"requestId", "host", "allow", "timestamp"},
	"task_assignment":             {"taskId", "subject", "description", "assignedBy", "timestamp"},
	"task_completed":              {"from", "taskId", "taskSubject", "timestamp"},
	"mode_set_request":            {"mode", "from", "timestamp"},
	"team_permission_update":      {"permissionUpdate", "directoryPath", "toolName", "from", "timestamp"},
}

// MessageContent is what an inbox entry's text holds: Kind "protocol" (Type, Raw with
// unknown keys kept, Typed = the generated struct such as musterwire.ShutdownRequest) or
// Kind "text" (Text; Problem set when it names a known type but breaks its schema).
type MessageContent struct {
	Kind    string
	Type    string
	Raw     *Object
	Typed   any
	Text    string
	Problem string
}

// ParseMessageContent recognises a protocol message (PROTOCOL.md 7): the text parses as a
// JSON object whose "type" is known and which validates against that type's schema.
// Anything else is free text, never an error.
func ParseMessageContent(text string) MessageContent {
	free := MessageContent{Kind: "text", Text: text}
	if !strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), "{") {
		return free
	}
	value, err := ParseJSON([]byte(text))
	if err != nil {
		return free
	}
	object := value.(*Object)
	messageType, _ := object.String("type")
	name, known := MessageTypeNames[messageType]
	if !known {
		return free
	}
	problems, err := ValidationErrors(name, object)
	if err != nil || len(problems) > 0 {
		if len(problems) > 5 {
			problems = problems[:5]
		}
		free.Problem = messageType + ": " + strings.Join(problems, "; ")
		return free
	}
	typed, err := ParseWire(name, object)
	if err != nil {
		free.Problem = err.Error()
		return free
	}
	return MessageContent{Kind: "protocol", Type: messageType, Raw: object, Typed: typed, Text: text}
}

// BuildProtocolMessage orders a message's fields ("type" first, then Claude Code's order,
// unknown keys last) and validates it; INVALID_MESSAGE when it breaks the schema.
func BuildProtocolMessage(messageType string, fields *Object) (*Object, error) {
	order, known := KeyOrder[messageType]
	if !known {
		return nil, newError(CodeInvalidMessage, fmt.Sprintf("%q is not a protocol message type; use one of %v.", messageType, sortedKeys(KeyOrder)),
			map[string]any{"type": messageType}, nil)
	}
	message := NewObject().Set("type", messageType)
	listed := map[string]bool{"type": true}
	for _, key := range order {
		listed[key] = true
		if value, present := fields.Get(key); present {
			message.Set(key, value)
		}
	}
	for _, key := range fields.Keys() {
		if !listed[key] {
			value, _ := fields.Get(key)
			message.Set(key, value)
		}
	}
	problems, err := ValidationErrors(MessageTypeNames[messageType], message)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, newError(CodeInvalidMessage,
			fmt.Sprintf("Refusing to send a malformed %s: %s. Fix the fields named here.", messageType, strings.Join(problems, "; ")),
			map[string]any{"type": messageType, "problems": problems}, nil)
	}
	return message, nil
}

// FormatProtocolMessage validates a message object and encodes it for an entry's text
// (compact JSON, as JavaScript's JSON.stringify writes it).
func FormatProtocolMessage(message *Object) (string, error) {
	messageType, _ := message.String("type")
	fields := NewObject()
	for _, key := range message.Keys() {
		if key != "type" {
			value, _ := message.Get(key)
			fields.Set(key, value)
		}
	}
	built, err := BuildProtocolMessage(messageType, fields)
	if err != nil {
		return "", err
	}
	return FormatCompact(built)
}

func epochMilliseconds() int64 { return time.Now().UnixNano() / 1e6 }

// ShutdownRequestID is shutdown-{epochMs}@{recipient}.
func ShutdownRequestID(recipient string) string {
	return "shutdown-" + strconv.FormatInt(epochMilliseconds(), 10) + "@" + recipient
}

// PermissionRequestID is perm-{epochMs}-{7 characters of [0-9a-z]}.
func PermissionRequestID() string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	suffix := make([]byte, 7)
	for index := range suffix {
		suffix[index] = alphabet[randomInt(int64(len(alphabet)))]
	}
	return "perm-" + strconv.FormatInt(epochMilliseconds(), 10) + "-" + string(suffix)
}

func encode(messageType string, fields *Object) (string, error) {
	message, err := BuildProtocolMessage(messageType, fields)
	if err != nil {
		return "", err
	}
	return FormatCompact(message)
}

// ShutdownRequest is the text of a shutdown_request from the lead to recipient (reason
// may be "").
func ShutdownRequest(from, recipient, reason string) (string, error) {
	fields := NewObject().Set("requestId", ShutdownRequestID(recipient)).Set("from", from)
	if reason != "" {
		fields.Set("reason", reason)
	}
	return encode("shutdown_request", fields.Set("timestamp", ISOTimestamp(time.Now())))
}

// ShutdownApproved is the text of a shutdown_approved answering requestID.
func ShutdownApproved(from, requestID string) (string, error) {
	return encode("shutdown_approved", NewObject().Set("requestId", requestID).Set("from", from).Set("timestamp", ISOTimestamp(time.Now())))
}

// ShutdownRejected is the text of a shutdown_rejected answering requestID.
func ShutdownRejected(from, requestID, reason string) (string, error) {
	return encode("shutdown_rejected", NewObject().Set("requestId", requestID).Set("from", from).Set("reason", reason).Set("timestamp", ISOTimestamp(time.Now())))
}

// PermissionResponseSuccess is the text of an approving permission_response.
func PermissionResponseSuccess(requestID string, updatedInput *Object, permissionUpdates []any) (string, error) {
	if permissionUpdates == nil {
		permissionUpdates = []any{}
	}
	response := NewObject().Set("updated_input", updatedInput).Set("permission_updates", permissionUpdates)
	return encode("permission_response", NewObject().Set("request_id", requestID).Set("subtype", "success").Set("response", response))
}

// PermissionResponseError is the text of a denying permission_response.
func PermissionResponseError(requestID, reason string) (string, error) {
	return encode("permission_response", NewObject().Set("request_id", requestID).Set("subtype", "error").Set("error", reason))
}
