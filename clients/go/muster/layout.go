package muster

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

var unsafeSegment = regexp.MustCompile(`[/\\\x00-\x1f\x7f]`)
var taskIDPattern = regexp.MustCompile(`^[1-9][0-9]{0,14}$`)

// CheckPathSegment returns an INVALID_NAME error unless segment can be one path segment:
// not empty, not "." or "..", no separators, NUL or control characters, at most 255 bytes.
func CheckPathSegment(segment, what string) error {
	reason := ""
	switch {
	case segment == "":
		reason = "it is empty"
	case segment == "." || segment == "..":
		reason = fmt.Sprintf("%q refers to a folder, not a name", segment)
	case unsafeSegment.MatchString(segment):
		reason = "it contains a path separator, NUL or control character"
	case len(segment) > 255:
		reason = "it is longer than 255 bytes"
	}
	if reason == "" {
		return nil
	}
	return newError(CodeInvalidName,
		fmt.Sprintf("The %s %q cannot be used: %s. Use letters, digits, \"-\", \"_\" or \".\".", what, segment, reason),
		map[string]any{"value": segment, "what": what}, nil)
}

// CheckTaskID returns an INVALID_NAME error unless taskID is a task id such as "7".
func CheckTaskID(taskID string) error {
	if taskIDPattern.MatchString(taskID) {
		return nil
	}
	return newError(CodeInvalidName,
		fmt.Sprintf("The task id %q is not valid: task ids are positive whole numbers without leading zeros, such as \"7\".", taskID),
		map[string]any{"value": taskID, "what": "task id"}, nil)
}

// DefaultRoot returns $MUSTER_HOME if set, else ~/.muster.
func DefaultRoot() (string, error) {
	if configured := strings.TrimSpace(os.Getenv("MUSTER_HOME")); configured != "" {
		return path.Clean(configured), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", newError(CodeIOError, "Cannot find the home folder for the default root ~/.muster; set MUSTER_HOME.", nil, err)
	}
	return filepath.Join(home, ".muster"), nil
}

// Layout gives every path under one root (PROTOCOL.md sections 1 and 2). Every method
// checks its names and refuses a path that would leave the root.
type Layout struct {
	Root string
}

// NewLayout checks and normalizes the root.
func NewLayout(root string) (*Layout, error) {
	if strings.TrimSpace(root) == "" || strings.ContainsRune(root, 0) {
		return nil, newError(CodeInvalidName,
			fmt.Sprintf("The muster root %q is not a usable folder path (empty or holding NUL). Pass a real folder, or set MUSTER_HOME.", root),
			map[string]any{"root": root}, nil)
	}
	return &Layout{Root: path.Clean(root)}, nil
}

func (layout *Layout) join(segments ...string) (string, error) {
	for _, segment := range segments {
		if err := CheckPathSegment(segment, "path segment"); err != nil {
			return "", err
		}
	}
	joined := path.Clean(path.Join(append([]string{layout.Root}, segments...)...))
	prefix := strings.TrimSuffix(layout.Root, "/") + "/"
	if joined != layout.Root && !strings.HasPrefix(joined, prefix) {
		return "", newError(CodePathEscapesRoot,
			fmt.Sprintf("The path %s would leave the muster root %s; refusing to use it.", joined, layout.Root),
			map[string]any{"root": layout.Root}, nil)
	}
	return joined, nil
}

func (layout *Layout) team(team string, rest ...string) (string, error) {
	if err := CheckPathSegment(team, "team name"); err != nil {
		return "", err
	}
	return layout.join(append([]string{"teams", team}, rest...)...)
}

func (layout *Layout) tasks(team string, rest ...string) (string, error) {
	if err := CheckPathSegment(team, "team name"); err != nil {
		return "", err
	}
	return layout.join(append([]string{"tasks", team}, rest...)...)
}

// AgentFileName is the inbox file stem of an agent: every "@" becomes "-".
func AgentFileName(agent string) (string, error) {
	name := strings.ReplaceAll(agent, "@", "-")
	return name, CheckPathSegment(name, "agent name")
}

// TeamDirectory is {root}/teams/{team}.
func (layout *Layout) TeamDirectory(team string) (string, error) { return layout.team(team) }

// TeamConfigPath is {root}/teams/{team}/config.json.
func (layout *Layout) TeamConfigPath(team string) (string, error) {
	return layout.team(team, "config.json")
}

// InboxesDirectory is {root}/teams/{team}/inboxes.
func (layout *Layout) InboxesDirectory(team string) (string, error) {
	return layout.team(team, "inboxes")
}

// InboxPath is {root}/teams/{team}/inboxes/{agent}.json ("@" in the name becomes "-").
func (layout *Layout) InboxPath(team, agent string) (string, error) {
	name, err := AgentFileName(agent)
	if err != nil {
		return "", err
	}
	return layout.team(team, "inboxes", name+".json")
}

// InboxArchivePath is {root}/teams/{team}/inboxes/{agent}.archive.jsonl.
func (layout *Layout) InboxArchivePath(team, agent string) (string, error) {
	name, err := AgentFileName(agent)
	if err != nil {
		return "", err
	}
	return layout.team(team, "inboxes", name+".archive.jsonl")
}

// TasksDirectory is {root}/tasks/{team}.
func (layout *Layout) TasksDirectory(team string) (string, error) { return layout.tasks(team) }

// TaskPath is {root}/tasks/{team}/{id}.json.
func (layout *Layout) TaskPath(team, taskID string) (string, error) {
	if err := CheckTaskID(taskID); err != nil {
		return "", err
	}
	return layout.tasks(team, taskID+".json")
}

// TasksLockPath is {root}/tasks/{team}/.lock (locked as .lock.lock).
func (layout *Layout) TasksLockPath(team string) (string, error) { return layout.tasks(team, ".lock") }

// HighWatermarkPath is {root}/tasks/{team}/.highwatermark.
func (layout *Layout) HighWatermarkPath(team string) (string, error) {
	return layout.tasks(team, ".highwatermark")
}
