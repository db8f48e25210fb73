package main

import (
	"strings"
	"testing"
)

// The weak space in the simulation is refuted at once and shrunk with one
// run per candidate to a single fault.
func TestExploreSimFindsAndShrinksWeak(t *testing.T) {
	var out, errb strings.Builder
	code := dispatch([]string{"explore", "--cluster", "sim", "--space", "weak", "--duration", "1m", "--quiet",
		"--runs", t.TempDir()}, &out, &errb)
	if code != exitInvalid || !strings.Contains(out.String(), "VIOLATED") {
		t.Fatalf("exit %d, want %d with a violation\nstdout:\n%s\nstderr:\n%s", code, exitInvalid, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "to 1 fault steps") {
		t.Errorf("the shrink did not reach one fault step:\n%s", out.String())
	}
}

func TestExploreSimRefusesPlantFreshAndSave(t *testing.T) {
	for _, args := range [][]string{{"--plant", "non-idempotent-retries"}, {"--fresh"}, {"--save", "x"}} {
		var out, errb strings.Builder
		if code := dispatch(append([]string{"explore", "--cluster", "sim"}, args...), &out, &errb); code != exitError {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, exitError, errb.String())
		}
	}
}
