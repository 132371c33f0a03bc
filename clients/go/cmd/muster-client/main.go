// Command muster-client is a tiny command line over the Go muster client (used by tests):
//
//	muster-client send --root R --team T --to alpha --from bob --text hi [--count N]
//	muster-client shutdown-request|permission-response|send-protocol …
//	muster-client read|history|mark-read --root R --team T --agent alpha
//	muster-client team|tasks --root R --team T
//	muster-client hold-lock --file F
//	muster-client roundtrip < [{"type": "TeamConfig", "file": "config.json"}]
//
// Output is JSON on stdout; errors go to stderr with exit code 1.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"muster.dev/clients/go/muster"
)

func main() {
	if len(os.Args) < 2 {
		fail(fmt.Errorf("usage: muster-client <send|shutdown-request|permission-response|send-protocol|read|history|mark-read|team|tasks|hold-lock|roundtrip> [flags]"))
	}
	if err := run(os.Args[1], os.Args[2:]); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func printJSON(value any) {
	text, err := muster.FormatCompact(value)
	if err != nil {
		fail(err)
	}
	fmt.Println(text)
}

type teamFlags struct {
	root, team      string
	deadline, stale time.Duration
	to, from, color string
	agent           string
}

func (flags *teamFlags) register(set *flag.FlagSet, sender bool) {
	set.StringVar(&flags.root, "root", "", "muster root (default: $MUSTER_HOME or ~/.muster)")
	set.StringVar(&flags.team, "team", "", "team name")
	set.DurationVar(&flags.deadline, "deadline", 0, "lock deadline (default: 20s, or twice --stale when that is longer)")
	set.DurationVar(&flags.stale, "stale", muster.DefaultStale, "lock stale time")
	if sender {
		set.StringVar(&flags.to, "to", "", "recipient agent name")
		set.StringVar(&flags.from, "from", "", "sender agent name")
		set.StringVar(&flags.color, "color", "", "sender color")
	} else {
		set.StringVar(&flags.agent, "agent", "", "agent whose inbox to read")
	}
}

func (flags *teamFlags) rootOrDefault() (string, error) {
	if flags.root != "" {
		return flags.root, nil
	}
	return muster.DefaultRoot()
}

func (flags *teamFlags) inboxes() (*muster.Inboxes, error) {
	root, err := flags.rootOrDefault()
	if err != nil {
		return nil, err
	}
	return muster.NewInboxes(root, flags.team, muster.LockOptions{Deadline: flags.deadline, Stale: flags.stale})
}

func sendText(flags *teamFlags, text string) error {
	inboxes, err := flags.inboxes()
	if err != nil {
		return err
	}
	entry, err := inboxes.Send(flags.to, muster.OutgoingMessage{From: flags.from, Text: text, Color: flags.color})
	if err != nil {
		return err
	}
	printJSON(muster.NewObject().Set("sent", 1).Set("entry", entry))
	return nil
}

func run(command string, arguments []string) error {
	set := flag.NewFlagSet(command, flag.ExitOnError)
	var flags teamFlags
	switch command {
	case "send":
		flags.register(set, true)
		text := set.String("text", "", "message text")
		summary := set.String("summary", "", "summary")
		count := set.Int("count", 0, "send this many messages, '<text><n>', one write each")
		_ = set.Parse(arguments)
		inboxes, err := flags.inboxes()
		if err != nil {
			return err
		}
		if *count == 0 {
			entry, err := inboxes.Send(flags.to, muster.OutgoingMessage{From: flags.from, Text: *text, Summary: *summary, Color: flags.color})
			if err != nil {
				return err
			}
			printJSON(muster.NewObject().Set("sent", 1).Set("entry", entry))
			return nil
		}
		for number := 0; number < *count; number++ {
			message := muster.OutgoingMessage{From: flags.from, Text: *text + strconv.Itoa(number), Summary: *summary, Color: flags.color}
			if _, err := inboxes.Send(flags.to, message); err != nil {
				return err
			}
		}
		printJSON(muster.NewObject().Set("sent", *count))
	case "shutdown-request":
		flags.register(set, true)
		reason := set.String("reason", "", "why")
		_ = set.Parse(arguments)
		text, err := muster.ShutdownRequest(flags.from, flags.to, *reason)
		if err != nil {
			return err
		}
		return sendText(&flags, text)
	case "permission-response":
		flags.register(set, true)
		requestID := set.String("request-id", "", "the permission_request's request_id")
		updatedInput := set.String("updated-input", "", "JSON object: approve with this input")
		denial := set.String("error", "", "deny with this reason")
		_ = set.Parse(arguments)
		var text string
		var err error
		if *denial != "" {
			text, err = muster.PermissionResponseError(*requestID, *denial)
		} else {
			value, parseErr := muster.ParseJSON([]byte(*updatedInput))
			object, isObject := value.(*muster.Object)
			if parseErr != nil || !isObject {
				return fmt.Errorf("--updated-input must be a JSON object")
			}
			text, err = muster.PermissionResponseSuccess(*requestID, object, nil)
		}
		if err != nil {
			return err
		}
		return sendText(&flags, text)
	case "send-protocol":
		flags.register(set, true)
		message := set.String("message", "", `JSON object with "type"`)
		_ = set.Parse(arguments)
		value, err := muster.ParseJSON([]byte(*message))
		object, isObject := value.(*muster.Object)
		if err != nil || !isObject {
			return fmt.Errorf("--message must be a JSON object")
		}
		text, err := muster.FormatProtocolMessage(object)
		if err != nil {
			return err
		}
		return sendText(&flags, text)
	case "read", "history", "mark-read":
		flags.register(set, false)
		unread := set.Bool("unread", false, "only unread entries (read)")
		_ = set.Parse(arguments)
		inboxes, err := flags.inboxes()
		if err != nil {
			return err
		}
		switch command {
		case "read":
			entries, err := inboxes.Read(flags.agent, *unread)
			if err != nil {
				return err
			}
			result := []any{}
			for _, entry := range entries {
				item := muster.NewObject().Set("index", entry.Index).Set("from", entry.Message.From).
					Set("text", entry.Message.Text).Set("read", entry.IsRead()).Set("kind", entry.Content.Kind)
				if entry.Content.Kind == "protocol" {
					item.Set("type", entry.Content.Type)
				}
				result = append(result, item)
			}
			printJSON(result)
		case "history":
			history, err := inboxes.ReadHistory(flags.agent)
			if err != nil {
				return err
			}
			result := []any{}
			for _, entry := range history {
				result = append(result, entry)
			}
			printJSON(result)
		default:
			marked, err := inboxes.MarkRead(flags.agent, nil)
			if err != nil {
				return err
			}
			printJSON(muster.NewObject().Set("marked", marked))
		}
	case "team", "tasks":
		flags.register(set, false)
		all := set.Bool("all", false, "include internal tasks")
		_ = set.Parse(arguments)
		root, err := flags.rootOrDefault()
		if err != nil {
			return err
		}
		if command == "team" {
			config, err := muster.ReadTeamConfig(root, flags.team)
			if err != nil {
				return err
			}
			printJSON(config.Raw)
			return nil
		}
		tasks, err := muster.ListTasks(root, flags.team, *all)
		if err != nil {
			return err
		}
		result := []any{}
		for _, task := range tasks {
			result = append(result, task.Raw)
		}
		printJSON(result)
	case "hold-lock":
		file := set.String("file", "", "file to lock")
		seconds := set.Float64("seconds", 0, "release after this long (default: never)")
		stale := set.Duration("stale", muster.DefaultStale, "lock stale time")
		_ = set.Parse(arguments)
		lock, err := muster.AcquireLock(*file, muster.LockOptions{Stale: *stale})
		if err != nil {
			return err
		}
		printJSON(muster.NewObject().Set("locked", lock.LockPath).Set("pid", os.Getpid()))
		if *seconds == 0 {
			select {}
		}
		time.Sleep(time.Duration(*seconds * float64(time.Second)))
		if err := lock.Release(); err != nil {
			return err
		}
		printJSON(muster.NewObject().Set("released", lock.LockPath))
	case "roundtrip":
		return roundtrip(os.Stdin)
	default:
		return fmt.Errorf("unknown command %q", command)
	}
	return nil
}

// roundtrip reads [{"type", "file"}] and prints [{"file", "type", "value"|"error"}], value
// being the file parsed into the generated type and serialized again.
func roundtrip(input io.Reader) error {
	var requests []struct {
		Type string `json:"type"`
		File string `json:"file"`
	}
	if err := json.NewDecoder(input).Decode(&requests); err != nil {
		return err
	}
	results := []any{}
	for _, request := range requests {
		result := muster.NewObject().Set("file", request.File).Set("type", request.Type)
		value, err := roundtripOne(request.Type, request.File)
		if err != nil {
			result.Set("error", err.Error())
		} else {
			result.Set("value", value)
		}
		results = append(results, result)
	}
	printJSON(results)
	return nil
}

func roundtripOne(typeName, file string) (any, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	value, err := muster.ParseJSON(data)
	if err != nil {
		return nil, err
	}
	resolved, err := muster.ResolveWireTypeName(typeName, value)
	if err != nil {
		return nil, err
	}
	wire := muster.WireTypes[resolved]
	typed, err := wire.Parse(data)
	if err != nil {
		return nil, err
	}
	serialized, err := wire.Serialize(typed)
	if err != nil {
		return nil, err
	}
	return muster.ParseJSON(serialized)
}
