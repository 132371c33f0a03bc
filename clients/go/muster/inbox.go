package muster

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"muster.dev/clients/go/musterwire"
)

// Inboxes are the inboxes of one team under a root (PROTOCOL.md sections 3.3 and 5).
type Inboxes struct {
	Layout *Layout
	Team   string
	Lock   LockOptions
}

// NewInboxes checks the root and team name.
func NewInboxes(root, team string, lock LockOptions) (*Inboxes, error) {
	layout, err := NewLayout(root)
	if err != nil {
		return nil, err
	}
	if err := CheckPathSegment(team, "team name"); err != nil {
		return nil, err
	}
	return &Inboxes{Layout: layout, Team: team, Lock: lock}, nil
}

// Path is where agent's inbox is.
func (inboxes *Inboxes) Path(agent string) (string, error) {
	return inboxes.Layout.InboxPath(inboxes.Team, agent)
}

// OutgoingMessage is one message to send; Summary, Color and Timestamp are optional
// (Timestamp defaults to now).
type OutgoingMessage struct {
	From, Text, Summary, Color, Timestamp string
}

// InboxEntry is one entry as read: its index, the raw object (unknown keys kept), the
// generated InboxMessage and what its text holds.
type InboxEntry struct {
	Index   int
	Raw     *Object
	Message musterwire.InboxMessage
	Content MessageContent
	Key     string
}

// IsRead reports whether the entry is marked read.
func (entry InboxEntry) IsRead() bool {
	value, _ := entry.Raw.Get("read")
	return value == true
}

func entryKeys(entries []any) []string {
	seen := map[string]int{}
	keys := make([]string, len(entries))
	for index, item := range entries {
		object, _ := item.(*Object)
		field := func(key string) string {
			if object == nil {
				return ""
			}
			text, _ := object.String(key)
			return text
		}
		sum := sha1.Sum([]byte(field("from") + "\x00" + field("timestamp") + "\x00" + field("summary") + "\x00" + field("text")))
		digest := hex.EncodeToString(sum[:])
		keys[index] = fmt.Sprintf("%d:%s", seen[digest], digest)
		seen[digest]++
	}
	return keys
}

func checkInbox(value any, file string) ([]any, error) {
	if value == nil {
		return []any{}, nil
	}
	problems, err := ValidationErrors("Inbox", value)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		if len(problems) > 5 {
			problems = problems[:5]
		}
		return nil, newError(CodeCorruptFile, fmt.Sprintf("%s is not a valid inbox: %s. Inspect or repair it.", file, strings.Join(problems, "; ")),
			map[string]any{"file": file}, nil)
	}
	return value.([]any), nil
}

// Send appends one entry (read: false) under the inbox lock and returns it as written.
func (inboxes *Inboxes) Send(recipient string, message OutgoingMessage) (*Object, error) {
	entries, err := inboxes.SendMany(recipient, []OutgoingMessage{message})
	if err != nil {
		return nil, err
	}
	return entries[0], nil
}

// SendMany appends several entries in one locked write (PROTOCOL.md 5.1): it creates the
// inboxes folder and the inbox as [] when missing, locks, re-reads, appends, replaces.
func (inboxes *Inboxes) SendMany(recipient string, messages []OutgoingMessage) ([]*Object, error) {
	file, err := inboxes.Path(recipient)
	if err != nil {
		return nil, err
	}
	entries := make([]*Object, 0, len(messages))
	for _, message := range messages {
		entry := NewObject().Set("from", message.From).Set("text", message.Text)
		if message.Summary != "" {
			entry.Set("summary", message.Summary)
		}
		timestamp := message.Timestamp
		if timestamp == "" {
			timestamp = ISOTimestamp(time.Now())
		}
		entry.Set("timestamp", timestamp)
		if message.Color != "" {
			entry.Set("color", message.Color)
		}
		entry.Set("read", false)
		problems, err := ValidationErrors("InboxMessage", entry)
		if err != nil {
			return nil, err
		}
		if len(problems) > 0 {
			return nil, newError(CodeInvalidMessage, fmt.Sprintf("Refusing to send a malformed message to %s: %s.", recipient, strings.Join(problems, "; ")),
				map[string]any{"recipient": recipient}, nil)
		}
		entries = append(entries, entry)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o777); err != nil {
		return nil, newError(CodeIOError, fmt.Sprintf("Cannot create the folder %s: %v.", filepath.Dir(file), err), map[string]any{"file": file}, err)
	}
	if err := createFileIfMissing(file, "[]"); err != nil {
		return nil, newError(CodeIOError, fmt.Sprintf("Cannot create the inbox %s: %v.", file, err), map[string]any{"file": file}, err)
	}
	_, _, err = UpdateJSONFile(file, func(current any) (any, error) {
		inbox, err := checkInbox(current, file)
		if err != nil {
			return nil, err
		}
		next := append([]any{}, inbox...)
		for _, entry := range entries {
			next = append(next, entry)
		}
		return next, nil
	}, inboxes.Lock)
	if err != nil {
		return nil, err
	}
	return entries, nil
}

// Read returns every entry of agent's inbox, oldest first (a missing inbox is empty), or
// only the unread ones. It reads without the lock; text that does not parse is read again
// before the file is called corrupt.
func (inboxes *Inboxes) Read(agent string, unreadOnly bool) ([]InboxEntry, error) {
	file, err := inboxes.Path(agent)
	if err != nil {
		return nil, err
	}
	value, err := ReadJSONFile(file)
	if err != nil {
		return nil, err
	}
	raw, err := checkInbox(value, file)
	if err != nil {
		return nil, err
	}
	keys := entryKeys(raw)
	entries := make([]InboxEntry, 0, len(raw))
	for index, item := range raw {
		object := item.(*Object)
		typed, err := ParseWire("InboxMessage", object)
		if err != nil {
			return nil, err
		}
		text, _ := object.String("text")
		entry := InboxEntry{Index: index, Raw: object, Message: typed.(musterwire.InboxMessage), Content: ParseMessageContent(text), Key: keys[index]}
		if !unreadOnly || !entry.IsRead() {
			entries = append(entries, entry)
		}
	}
	return entries, nil
}

// ReadHistory returns every entry agent ever received: the archive (muster's compaction
// moves read entries there), then the inbox.
func (inboxes *Inboxes) ReadHistory(agent string) ([]*Object, error) {
	archive, err := inboxes.Layout.InboxArchivePath(inboxes.Team, agent)
	if err != nil {
		return nil, err
	}
	var history []*Object
	handle, err := os.Open(archive)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, newError(CodeIOError, fmt.Sprintf("Cannot read %s: %v.", archive, err), map[string]any{"file": archive}, err)
	}
	if err == nil {
		defer handle.Close()
		scanner := bufio.NewScanner(handle)
		scanner.Buffer(make([]byte, 1<<20), 1<<30)
		for scanner.Scan() {
			if strings.TrimSpace(scanner.Text()) == "" {
				continue
			}
			value, err := ParseJSON(scanner.Bytes())
			if err != nil {
				return nil, newError(CodeCorruptFile, fmt.Sprintf("A line of %s does not parse: %v.", archive, err), map[string]any{"file": archive}, err)
			}
			history = append(history, value.(*Object))
		}
		if err := scanner.Err(); err != nil {
			return nil, newError(CodeIOError, fmt.Sprintf("Cannot read %s: %v.", archive, err), map[string]any{"file": archive}, err)
		}
	}
	entries, err := inboxes.Read(agent, false)
	if err != nil {
		return nil, err
	}
	for _, entry := range entries {
		history = append(history, entry.Raw)
	}
	return history, nil
}

// MarkRead marks entries read under the lock, in place (PROTOCOL.md 5.2). Entries from
// Read are found again by index, or by content if the inbox changed meanwhile; nil marks
// every unread entry. It returns how many entries changed and creates nothing.
func (inboxes *Inboxes) MarkRead(agent string, entries []InboxEntry) (int, error) {
	file, err := inboxes.Path(agent)
	if err != nil {
		return 0, err
	}
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	changed := 0
	_, _, err = UpdateJSONFile(file, func(current any) (any, error) {
		changed = 0
		if current == nil {
			return SkipWrite, nil
		}
		inbox, err := checkInbox(current, file)
		if err != nil {
			return nil, err
		}
		var targets []int
		if entries == nil {
			for index := range inbox {
				targets = append(targets, index)
			}
		} else {
			keys := entryKeys(inbox)
			for _, entry := range entries {
				if entry.Index < len(keys) && keys[entry.Index] == entry.Key {
					targets = append(targets, entry.Index)
					continue
				}
				for index, key := range keys {
					if key == entry.Key {
						targets = append(targets, index)
						break
					}
				}
			}
		}
		for _, index := range targets {
			object := inbox[index].(*Object)
			if read, _ := object.Get("read"); read != true {
				object.Set("read", true)
				changed++
			}
		}
		if changed == 0 {
			return SkipWrite, nil
		}
		return inbox, nil
	}, inboxes.Lock)
	return changed, err
}
