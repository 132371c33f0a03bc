package muster

import "testing"

func TestPathsFollowTheProtocolLayout(t *testing.T) {
	layout, _ := NewLayout("/home/u/.muster/")
	check := func(got string, err error, want string) {
		t.Helper()
		if err != nil || got != want {
			t.Errorf("got %q (%v), want %q", got, err, want)
		}
	}
	got, err := layout.TeamConfigPath("conf-team")
	check(got, err, "/home/u/.muster/teams/conf-team/config.json")
	got, err = layout.InboxPath("conf-team", "alpha@conf-team")
	check(got, err, "/home/u/.muster/teams/conf-team/inboxes/alpha-conf-team.json")
	got, err = layout.TaskPath("t", "12")
	check(got, err, "/home/u/.muster/tasks/t/12.json")
	got, err = layout.TasksLockPath("t")
	check(got, err, "/home/u/.muster/tasks/t/.lock")
}

func TestUnsafeNamesAreRefused(t *testing.T) {
	layout, _ := NewLayout("/r")
	for _, team := range []string{"", ".", "..", "a/b", `a\b`, "a\x00b", "tab\there"} {
		if _, err := layout.TeamDirectory(team); !HasCode(err, CodeInvalidName) {
			t.Errorf("team %q: got %v", team, err)
		}
	}
	for _, id := range []string{"0", "07", "-1", "1.5", "abc", ""} {
		if _, err := layout.TaskPath("t", id); !HasCode(err, CodeInvalidName) {
			t.Errorf("task id %q: got %v", id, err)
		}
	}
}
