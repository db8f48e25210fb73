package realbroker

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"
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

func TestFlockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l")
	unlock, err := Flock(path)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan struct{})
	go func() {
		u, err := Flock(path)
		if err != nil {
			t.Error(err)
		} else {
			u()
		}
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("second lock taken while the first is held")
	case <-time.After(100 * time.Millisecond):
	}
	unlock()
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("second lock not taken after release")
	}
	if _, err := Flock(filepath.Join(path, "x", "y")); err == nil {
		t.Error("lock under a file: no error")
	}
}
