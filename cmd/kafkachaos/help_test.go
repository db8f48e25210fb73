package main

import (
	"strings"
	"testing"
)

// Asking for help is no mistake: kafkachaos -h, help and every
// subcommand's -h (and --help) print the usage on stderr and exit 0.
func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		if code, _, errs := cli(t, args...); code != exitValid || !strings.Contains(errs, "usage: kafkachaos") {
			t.Errorf("kafkachaos %s: exit %d, stderr %q", args[0], code, errs)
		}
	}
	for _, c := range commands() {
		for _, h := range []string{"-h", "--help"} {
			code, _, errs := cli(t, c.name, h)
			if code != exitValid || !strings.Contains(errs, "usage: kafkachaos "+c.name) {
				t.Errorf("kafkachaos %s %s: exit %d, want 0 with its usage; stderr %q", c.name, h, code, errs)
			}
		}
	}
}

// A bad flag is still bad usage (exit 2), whatever -h does.
func TestBadFlagExitsTwo(t *testing.T) {
	for _, c := range commands() {
		if code, _, _ := cli(t, c.name, "--no-such-flag"); code != exitError {
			t.Errorf("kafkachaos %s --no-such-flag: exit %d, want %d", c.name, code, exitError)
		}
	}
}

// The usage says what the README says: summary's exit 1 covers a run that
// is not live, and explore's clusters include the simulation.
func TestHelpTextsNameWhatTheCommandsDo(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"summary", "was not live"},
		{"explore", "embedded|local|docker|external|sim"},
	} {
		if _, _, errs := cli(t, tc.cmd, "-h"); !strings.Contains(errs, tc.want) {
			t.Errorf("kafkachaos %s -h does not say %q:\n%s", tc.cmd, tc.want, errs)
		}
	}
}
