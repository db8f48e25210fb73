package histories

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// blocksHistory is a JSONL history of several blocks (blockSize) and its
// lines, each op on its own line.
func blocksHistory(t *testing.T) ([]byte, [][]byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := ExportJSONL(&buf, FromOps(benchOps(40_000))); err != nil {
		t.Fatal(err)
	}
	if buf.Len() < 3*blockSize {
		t.Fatalf("history of %d bytes, want several blocks", buf.Len())
	}
	return buf.Bytes(), bytes.SplitAfter(buf.Bytes(), []byte("\n"))
}

func TestScanAgreesWithNextAcrossBlocks(t *testing.T) {
	data, _ := blocksHistory(t)
	// A line longer than a block, and blank lines, amid the others.
	long := `{"index":40000,"time":1,"process":-1,"type":"info","f":"kill","value":"` + strings.Repeat("x", 3*blockSize) + `"}`
	in := string(data) + "\n  \n" + long + "\n" + strings.Replace(okLine1, `"index":1`, `"index":40001`, 1)
	next, _, err := readString(in)
	if err != nil {
		t.Fatal(err)
	}
	scanned, _, err := scanString(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(scanned) != 40_002 || !reflect.DeepEqual(scanned, next) {
		t.Fatalf("Scan read %d ops, Next %d: %s", len(scanned), len(next), firstDiff(scanned, next))
	}
}

// Errors and warnings deep in a history name the line wherever blocks end.
func TestScanNamesTheLineInLaterBlocks(t *testing.T) {
	_, lines := blocksHistory(t)
	at := len(lines) - 7 // an op in the last block, on line at+1
	with := func(line string) string {
		return string(bytes.Join(lines[:at], nil)) + line + string(bytes.Join(lines[at+1:], nil))
	}
	index := fmt.Sprintf(`"index":%d`, at)
	bad := strings.Replace(string(lines[at]), `"type":"`, `"type":"x`, 1)
	backwards := strings.Replace(string(lines[at]), index, `"index":12`, 1)
	for _, c := range []struct{ in, want string }{
		{with(bad), fmt.Sprintf(`history.jsonl:%d: field "type": unknown op type`, at+1)},
		{with(backwards), fmt.Sprintf(`history.jsonl:%d: field "index": index 12 does not follow %d`, at+1, at-1)},
	} {
		ops, _, err := scanString(c.in)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || len(ops) != at {
			t.Fatalf("%d ops, error %v, want %d ops and %s", len(ops), err, at, c.want)
		}
	}
	cut := string(bytes.Join(lines, nil)) + okLine1[:30] // lines ends with the empty text after the last newline
	ops, warns, err := scanString(cut)
	if err != nil || len(ops) != len(lines)-1 || len(warns) != 1 || warns[0].Line != len(lines) {
		t.Fatalf("%d ops, warnings %v, error %v", len(ops), warns, err)
	}
}

func TestScanStopsMidHistoryAndReportsReadErrors(t *testing.T) {
	data, _ := blocksHistory(t)
	stop := errors.New("stop")
	n := 0
	err := NewReader(bytes.NewReader(data), "h").Scan(func(*Op) error {
		if n++; n == 20_000 {
			return stop
		}
		return nil
	})
	if err != stop || n != 20_000 {
		t.Fatalf("err %v after %d ops", err, n)
	}
	broken := errors.New("disk on fire")
	r := io.MultiReader(bytes.NewReader(data[:2*blockSize+100]), iotest.ErrReader(broken))
	err = NewReader(r, "h").Scan(func(*Op) error { return nil })
	if !errors.Is(err, broken) {
		t.Fatalf("read error lost: %v", err)
	}
}
