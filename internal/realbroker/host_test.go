package realbroker

import (
	"errors"
	"slices"
	"testing"
)

func TestIgnoreNoQdisc(t *testing.T) {
	fail := errors.New("exit status 2")
	if err := IgnoreNoQdisc("Error: Cannot delete qdisc with handle of zero.", fail); err != nil {
		t.Errorf("absent qdisc: %v", err)
	}
	if err := IgnoreNoQdisc("RTNETLINK answers: No such file or directory", fail); err != nil {
		t.Errorf("absent qdisc: %v", err)
	}
	if err := IgnoreNoQdisc("Operation not permitted", fail); err != fail {
		t.Errorf("real failure swallowed: %v", err)
	}
}

func TestTBF(t *testing.T) {
	got := TBF(1_000_000)
	if !slices.Equal(got[:4], []string{"root", "tbf", "rate", "1000000bit"}) {
		t.Errorf("TBF = %v", got)
	}
}
