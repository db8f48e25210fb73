package flock

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan struct{})
	go func() {
		u, err := Lock(path)
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
}

func TestLockUnderAFileFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := Lock(filepath.Join(path, "x", "y")); err == nil {
		t.Error("lock under a file: no error")
	}
}

func TestLockContextGivesUpWhenTheContextEnds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if u, err := LockContext(ctx, path); err == nil {
		u()
		t.Fatal("LockContext took a lock another holder has")
	} else if !strings.Contains(err.Error(), "still held") {
		t.Errorf("error %q does not say the lock is held", err)
	}
	unlock()
	u, err := LockContext(context.Background(), path)
	if err != nil {
		t.Fatalf("LockContext after release: %v", err)
	}
	u()
}
