package histories

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// chunkedEDN is an EDN history of several chunks (ednChunkSize), one op a
// line, and its ops as the sequential path reads each line alone.
func chunkedEDN(t *testing.T) ([]Op, []string) {
	t.Helper()
	var buf bytes.Buffer
	if err := ExportEDN(&buf, FromOps(benchOps(40_000))); err != nil {
		t.Fatal(err)
	}
	if buf.Len() < 3*ednChunkSize {
		t.Fatalf("history of %d bytes, want several chunks", buf.Len())
	}
	lines := strings.SplitAfter(buf.String(), "\n")
	var ops []Op
	for _, l := range lines[:len(lines)-1] {
		op, _, err := ReadEDN(strings.NewReader(l), "h.edn")
		if err != nil || len(op) != 1 {
			t.Fatalf("%v, %d ops in %s", err, len(op), l)
		}
		ops = append(ops, op[0])
	}
	return ops, lines
}

func TestEDNChunksReadLikeOneSequence(t *testing.T) {
	ops, lines := chunkedEDN(t)
	plain := strings.Join(lines, "")
	// As a vector of tagged literals, with a comment, a discarded op and
	// strings and characters holding brackets between chunks' ops.
	var tagged strings.Builder
	tagged.WriteString("[")
	for i, l := range lines {
		if i%5000 == 1 {
			tagged.WriteString("; a comment } {\n#_ {:index -1 :note \"}\" :c \\}}\n#jepsen.history.Op\n")
		}
		tagged.WriteString(l)
	}
	tagged.WriteString("]\n")
	for name, in := range map[string]string{"plain": plain, "tagged vector": tagged.String()} {
		got, warns, err := ReadEDN(strings.NewReader(in), "h.edn")
		if err != nil || len(warns) > 0 || !reflect.DeepEqual(got, ops) {
			t.Fatalf("%s: %v %v, read %d ops of %d: %s", name, err, warns, len(got), len(ops), firstDiff(got, ops))
		}
	}
}

// A bad op in an early chunk is reported as the sequential reader reports
// it, after every op before it; a cut-off last op is still a warning.
func TestEDNChunksReportErrorsInOrder(t *testing.T) {
	_, lines := chunkedEDN(t)
	at := 3 * len(lines) / 10 // in the second chunk or so
	bad := append(append(append([]string{}, lines[:at]...), strings.Replace(lines[at], ":type", ":type :oops", 1)), lines[at+1:]...)
	n := 0
	err := NewEDNReader(strings.NewReader(strings.Join(bad, "")), "h.edn").Scan(func(*Op) error { n++; return nil })
	want := fmt.Sprintf("h.edn:%d:", at+1)
	if err == nil || !strings.HasPrefix(err.Error(), want) || n != at {
		t.Fatalf("%d ops, error %v, want %d ops and an error at %s", n, err, at, want)
	}
	cut := strings.Join(lines, "") + "{:index 40000, :type"
	got, warns, err := ReadEDN(strings.NewReader(cut), "h.edn")
	if err != nil || len(got) != len(lines)-1 || len(warns) != 1 {
		t.Fatalf("%d ops, %v, %v", len(got), warns, err)
	}
}

// The cutter cuts often and only where an op begins: at the start of a
// line of these histories, never inside a comment, a discarded form or a
// tagged op.
func TestEDNCutterCutsAtOps(t *testing.T) {
	_, lines := chunkedEDN(t)
	var tagged strings.Builder
	for i, l := range lines {
		if i%50 == 1 {
			tagged.WriteString("; a comment } {\n#_ {:index -1 :note \"}\" :c \\}}\n#jepsen.history.Op ")
		}
		tagged.WriteString(l)
	}
	const size = 16 << 10
	class := ednClasses()
	for name, text := range map[string]string{"plain": strings.Join(lines, ""), "tagged": tagged.String()} {
		cu := ednCutter{data: []byte(text)}
		last, cuts := 0, 0
		for {
			at, ok := cu.next(last, size, &class)
			if !ok {
				break
			}
			if at-last < size || text[at-1] != '\n' || text[at] != '{' && text[at] != '#' {
				t.Fatalf("%s: cut at %d (%d past the last), after %q", name, at, at-last, text[max(0, at-30):at])
			}
			last = at
			cuts++
		}
		if want := len(text) / size / 2; cuts < want {
			t.Errorf("%s: %d cuts in %d bytes, want at least %d", name, cuts, len(text), want)
		}
	}
}
