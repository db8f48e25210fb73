package chaostest

import "testing"

// Check fails, and Run keeps the run directory, for each finding alone; a
// held guarantee with nothing else passes.
func TestVerdictFailedOnEachFinding(t *testing.T) {
	for _, c := range []struct {
		name string
		v    Verdict
		want bool
	}{
		{"held", Verdict{Held: true}, false},
		{"broken", Verdict{}, true},
		{"hang", Verdict{Held: true, Hangs: []string{"start 2"}}, true},
		{"not consumed", Verdict{Held: true, Unconsumed: []Record{{}}}, true},
		{"input lost", Verdict{Held: true, InputLost: []Record{{}}}, true},
		{"not live", Verdict{Held: true, NotLive: []string{"the cluster stayed unhealthy"}}, true},
		{"notes only", Verdict{Held: true, Notes: []string{"start 3 returned on its own"}}, false},
	} {
		if got := c.v.failed(); got != c.want {
			t.Errorf("%s: failed = %v, want %v", c.name, got, c.want)
		}
	}
}
