package testsummary

import (
	"bytes"
	"strings"
	"testing"
)

// stream builds a go test -json stream: one skipped test per message in
// pkg "m/real", a passing test in "m", and "m/empty" without tests.
func stream(skips ...string) string {
	var b strings.Builder
	b.WriteString(`{"Action":"run","Package":"m","Test":"TestOK"}` + "\n")
	b.WriteString(`{"Action":"pass","Package":"m","Test":"TestOK"}` + "\n")
	b.WriteString(`{"Action":"pass","Package":"m"}` + "\n")
	b.WriteString(`{"Action":"output","Package":"m/empty","Output":"?   \tm/empty\t[no test files]\n"}` + "\n")
	b.WriteString(`{"Action":"skip","Package":"m/empty"}` + "\n")
	for i, msg := range skips {
		name := "TestReal" + string(rune('A'+i))
		b.WriteString(`{"Action":"run","Package":"m/real","Test":"` + name + `"}` + "\n")
		b.WriteString(`{"Action":"output","Package":"m/real","Test":"` + name + `","Output":"    real_test.go:1: ` + msg + `\n"}` + "\n")
		b.WriteString(`{"Action":"skip","Package":"m/real","Test":"` + name + `"}` + "\n")
	}
	b.WriteString(`{"Action":"pass","Package":"m/real"}` + "\n")
	return b.String()
}

func mustRead(t *testing.T, name, in string) Run {
	t.Helper()
	r, err := Read(name, strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSkipsGroupByRunAndMessage(t *testing.T) {
	s := Summary{Trim: "m", Runs: []Run{
		mustRead(t, "unit", stream("needs nft", "needs nft", "needs chromium")),
		mustRead(t, "local", stream("needs nft")),
	}}
	got := s.Skips()
	want := []SkipGroup{
		{Run: "unit", Message: "needs nft", Tests: []string{"real TestRealA", "real TestRealB"}},
		{Run: "unit", Message: "needs chromium", Tests: []string{"real TestRealC"}},
		{Run: "local", Message: "needs nft", Tests: []string{"real TestRealA"}},
	}
	if len(got) != len(want) {
		t.Fatalf("skips = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Run != want[i].Run || got[i].Message != want[i].Message || strings.Join(got[i].Tests, "|") != strings.Join(want[i].Tests, "|") {
			t.Errorf("skips[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if c := s.Runs[0].Counts(); c != (Counts{PackagesPassed: 2, PackagesWithoutTests: 1, Passed: 1, Skipped: 3}) {
		t.Errorf("counts = %+v", c)
	}
	if s.Failed() {
		t.Error("Failed() = true for runs with only passes and skips")
	}
}

func TestFailedCountsAPackageThatNeverEnded(t *testing.T) {
	s := Summary{Runs: []Run{mustRead(t, "unit", `{"Action":"start","Package":"m"}`+"\n"+
		`{"Action":"output","Package":"m","Output":"signal: killed\n"}`)}}
	if !s.Failed() {
		t.Fatal("Failed() = false for a package with no end event")
	}
	if f := s.Failures(); len(f) != 1 || f[0] != "unit: m (package unfinished): signal: killed" {
		t.Errorf("failures = %q", f)
	}
}

func TestWriteMarkdownEscapes(t *testing.T) {
	s := Summary{Trim: "m", Runs: []Run{mustRead(t, "unit", stream("set KAFKACHAOS_SOAK=<runs>"))}}
	var b bytes.Buffer
	if err := s.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	want := "- unit, 1 test: set KAFKACHAOS\\_SOAK=&lt;runs&gt;: `real TestRealA`"
	if !strings.Contains(b.String(), want) {
		t.Errorf("markdown lacks %q:\n%s", want, b.String())
	}
}
