package muster

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"muster.dev/clients/go/musterwire"
)

// Loaded is a file as read: the raw object (unknown keys kept) and the generated type.
type Loaded[T any] struct {
	Raw   *Object
	Typed T
}

func load[T any](typeName, file string) (Loaded[T], error) {
	var empty Loaded[T]
	value, err := ReadJSONFile(file)
	if err != nil {
		return empty, err
	}
	if value == nil {
		return empty, newError(CodeNotFound, fmt.Sprintf("%s does not exist. Check the root and team name.", file), map[string]any{"file": file}, nil)
	}
	problems, err := ValidationErrors(typeName, value)
	if err != nil {
		return empty, err
	}
	if len(problems) > 0 {
		return empty, newError(CodeCorruptFile, fmt.Sprintf("%s is not a valid %s: %s. Inspect or repair it.", file, typeName, strings.Join(problems, "; ")),
			map[string]any{"file": file}, nil)
	}
	typed, err := ParseWire(typeName, value)
	if err != nil {
		return empty, err
	}
	return Loaded[T]{Raw: value.(*Object), Typed: typed.(T)}, nil
}

// ReadTeamConfig reads teams/{team}/config.json.
func ReadTeamConfig(root, team string) (Loaded[musterwire.TeamConfig], error) {
	layout, err := NewLayout(root)
	if err != nil {
		return Loaded[musterwire.TeamConfig]{}, err
	}
	file, err := layout.TeamConfigPath(team)
	if err != nil {
		return Loaded[musterwire.TeamConfig]{}, err
	}
	return load[musterwire.TeamConfig]("TeamConfig", file)
}

// ReadTask reads tasks/{team}/{id}.json.
func ReadTask(root, team, taskID string) (Loaded[musterwire.Task], error) {
	layout, err := NewLayout(root)
	if err != nil {
		return Loaded[musterwire.Task]{}, err
	}
	file, err := layout.TaskPath(team, taskID)
	if err != nil {
		return Loaded[musterwire.Task]{}, err
	}
	return load[musterwire.Task]("Task", file)
}

var taskFile = regexp.MustCompile(`^([1-9][0-9]{0,14})\.json$`)

// ListTasks reads every task of the team by numeric id; internal tracking tasks
// (metadata._internal: true) only when includeInternal. A missing folder is no tasks.
func ListTasks(root, team string, includeInternal bool) ([]Loaded[musterwire.Task], error) {
	layout, err := NewLayout(root)
	if err != nil {
		return nil, err
	}
	folder, err := layout.TasksDirectory(team)
	if err != nil {
		return nil, err
	}
	names, err := os.ReadDir(folder)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, newError(CodeIOError, fmt.Sprintf("Cannot list %s: %v.", folder, err), map[string]any{"folder": folder}, err)
	}
	var ids []int
	for _, name := range names {
		if match := taskFile.FindStringSubmatch(name.Name()); match != nil {
			id, _ := strconv.Atoi(match[1])
			ids = append(ids, id)
		}
	}
	sort.Ints(ids)
	var tasks []Loaded[musterwire.Task]
	for _, id := range ids {
		task, err := ReadTask(root, team, strconv.Itoa(id))
		if HasCode(err, CodeNotFound) {
			continue // deleted between listing and reading
		}
		if err != nil {
			return nil, err
		}
		internal := false
		if metadata, present := task.Raw.Get("metadata"); present {
			if object, isObject := metadata.(*Object); isObject {
				value, _ := object.Get("_internal")
				internal = value == true
			}
		}
		if includeInternal || !internal {
			tasks = append(tasks, task)
		}
	}
	return tasks, nil
}
