package muster

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

func TestReadsTheReferenceTeamConfigAndTaskList(t *testing.T) {
	root := t.TempDir()
	source := filepath.Join(referenceFolder(t), "06-all-teammates-spawned")
	if output, err := exec.Command("cp", "-R", source+"/.", root).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v %s", err, output)
	}
	config, err := ReadTeamConfig(root, "conf-team")
	if err != nil {
		t.Fatal(err)
	}
	if config.Typed.Members[0].Name != "team-lead" || config.Typed.LeadAgentID != "team-lead@conf-team" {
		t.Errorf("config %+v", config.Typed)
	}
	everything, err := ListTasks(root, "conf-team", true)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, task := range everything {
		ids = append(ids, task.Typed.ID)
	}
	if !reflect.DeepEqual(ids, []string{"1", "2", "3", "5", "6", "7"}) {
		t.Errorf("ids %v", ids)
	}
	visible, _ := ListTasks(root, "conf-team", false)
	if len(visible) == 0 || len(visible) >= len(everything) {
		t.Errorf("%d visible of %d", len(visible), len(everything))
	}
	for _, task := range visible {
		if task.Typed.Metadata != nil && (*task.Typed.Metadata)["_internal"] == true {
			t.Errorf("internal task %s listed", task.Typed.ID)
		}
	}
}

func TestAMissingTeamIsReported(t *testing.T) {
	root := t.TempDir()
	if _, err := ReadTeamConfig(root, "nope"); !HasCode(err, CodeNotFound) {
		t.Fatalf("got %v", err)
	}
	if tasks, err := ListTasks(root, "nope", false); err != nil || len(tasks) != 0 {
		t.Fatalf("got %v %v", tasks, err)
	}
}
