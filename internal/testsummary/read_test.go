package testsummary

import (
	"os"
	"strings"
	"testing"
)

// testdata/broken.json is real `go test -json -timeout 1s ./...` output of
// a module with a package that does not compile and one whose test hangs
// (the module's directory renamed /src in its stack traces).
func TestReadBrokenModule(t *testing.T) {
	f, err := os.Open("testdata/broken.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run, err := Read("broken", f)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]Package{}
	for _, p := range run.Packages {
		pkgs[p.Name] = p
	}
	if len(pkgs) != 2 || pkgs["brk"].Result != Fail || pkgs["brk/ok"].Result != Fail {
		t.Fatalf("packages = %+v, want brk and brk/ok failed (and no entry for the build's import path)", run.Packages)
	}
	if got := strings.Join(pkgs["brk"].Output, "\n"); !strings.Contains(got, "declared and not used: x") {
		t.Errorf("brk output lacks the compiler error: %q", got)
	}
	want := map[string]Test{
		"TestSub":    {Package: "brk/ok", Name: "TestSub", Result: Pass},
		"TestSub/s1": {Package: "brk/ok", Name: "TestSub/s1", Result: Skip, Message: "first line second line"},
		"TestSub/s2": {Package: "brk/ok", Name: "TestSub/s2", Result: Pass},
		"TestHang":   {Package: "brk/ok", Name: "TestHang", Result: Unfinished, Message: "panic: test timed out after 1s"},
	}
	if len(run.Tests) != len(want) {
		t.Fatalf("tests = %+v, want %d", run.Tests, len(want))
	}
	for _, got := range run.Tests {
		got.Elapsed = 0
		if got != want[got.Name] {
			t.Errorf("test %s = %+v, want %+v", got.Name, got, want[got.Name])
		}
	}
}

func TestReadRejectsANonEventLine(t *testing.T) {
	in := `{"Action":"start","Package":"p"}` + "\nok  \tp\t0.1s\n"
	_, err := Read("unit", strings.NewReader(in))
	if err == nil || !strings.Contains(err.Error(), "unit line 2") {
		t.Fatalf("err = %v, want one naming unit line 2", err)
	}
	_, err = Read("unit", strings.NewReader(`{"Package":"p"}`))
	if err == nil || !strings.Contains(err.Error(), "unit line 1: event without an Action") {
		t.Fatalf("err = %v, want one naming the missing Action on line 1", err)
	}
}

func TestMessage(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"skip after logs", []string{"=== RUN   TestX", "    x_test.go:3: starting", "    x_test.go:9: needs nft", "--- SKIP: TestX (0.00s)"}, "needs nft"},
		{"continuation", []string{"    x_test.go:9: needs", "        root", "--- SKIP: TestX (0.00s)"}, "needs root"},
		{"printed, not logged", []string{"=== RUN   TestX", "plain output", "--- SKIP: TestX (0.00s)"}, "plain output"},
		{"printed after a log is not a continuation", []string{"    x_test.go:9: logged", "printed"}, "printed"},
		{"nothing", []string{"=== RUN   TestX", "--- SKIP: TestX (0.00s)"}, ""},
	}
	for _, c := range cases {
		if got := message(c.lines); got != c.want {
			t.Errorf("%s: message = %q, want %q", c.name, got, c.want)
		}
	}
}
