package histories

import (
	"errors"
	"io"
	"strings"
	"testing"
)

const okLine0 = `{"index":0,"time":1,"process":3,"type":"invoke","f":"send","value":[{"f":"send","key":1,"value":17}]}`
const okLine1 = `{"index":1,"time":2,"process":3,"type":"ok","f":"send","value":[{"f":"send","key":1,"value":17,"offset":272}]}`

func readString(in string) ([]Op, []Warning, error) {
	r := NewReader(strings.NewReader(in), "history.jsonl")
	var ops []Op
	for {
		op, err := r.Next()
		if err == io.EOF {
			return ops, r.Warnings(), nil
		}
		if err != nil {
			return ops, r.Warnings(), err
		}
		ops = append(ops, *op)
	}
}

// scanString reads like readString through Scan, the parallel path.
func scanString(in string) ([]Op, []Warning, error) {
	r := NewReader(strings.NewReader(in), "history.jsonl")
	var ops []Op
	err := r.Scan(func(op *Op) error {
		ops = append(ops, *op.Clone())
		return nil
	})
	return ops, r.Warnings(), err
}

// bothReads are the two ways to read a history, which must agree.
var bothReads = []struct {
	name string
	read func(string) ([]Op, []Warning, error)
}{{"Next", readString}, {"Scan", scanString}}

func TestReaderDesignExample(t *testing.T) {
	in := okLine0 + "\n" + okLine1 + "\n" +
		`{"index":2,"time":1700000,"process":4,"type":"ok","f":"poll","value":[{"f":"poll","records":{"1":[[271,16],[272,17]]}}],"group":"g","rebalance":{"revoked":[2],"assigned":[1]}}` + "\n" +
		`{"index":3,"time":1800000,"process":-1,"type":"info","f":"kill","value":{"nodes":[2]},"note":{"x":1}}` + "\n" +
		`{"index":4,"time":1900000,"process":4,"type":"ok","f":"commit","value":[{"f":"commit","offsets":{"1":273}}]}` + "\n"
	ops, warns, err := readString(in)
	if err != nil || len(warns) > 0 || len(ops) != 5 {
		t.Fatalf("%d ops, %v, %v", len(ops), warns, err)
	}
	if m := ops[1].Mops[0]; m.Offset != 272 || m.Key != 1 || m.Value != 17 {
		t.Errorf("ok send: %+v", m)
	}
	if m := ops[0].Mops[0]; m.Offset != NoOffset {
		t.Errorf("invoke send offset %d, want NoOffset", m.Offset)
	}
	if r := ops[2].Mops[0].Records[1]; len(r) != 2 || r[1] != (Record{272, 17}) || ops[2].Group != "g" || ops[2].Rebalance.Revoked[0] != 2 {
		t.Errorf("poll: %+v", ops[2])
	}
	if string(ops[3].Value) != `{"nodes":[2]}` || string(ops[3].Extra["note"]) != `{"x":1}` || ops[3].IsClient() {
		t.Errorf("nemesis: %+v", ops[3])
	}
	if ops[4].Mops[0].Offsets[1] != 273 {
		t.Errorf("commit: %+v", ops[4])
	}
}

func TestReaderErrors(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"unknown type", okLine0 + "\n" + strings.Replace(okLine1, `"ok"`, `"okk"`, 1) + "\n",
			`history.jsonl:2: field "type": unknown op type "okk"`},
		{"index repeated", okLine0 + "\n" + strings.Replace(okLine1, `"index":1`, `"index":0`, 1) + "\n",
			`history.jsonl:2: field "index": index 0 does not follow 0 (indexes must increase)`},
		{"negative index", strings.Replace(okLine0, `"index":0`, `"index":-2`, 1) + "\n",
			`history.jsonl:1: field "index": index -2 is negative`},
		{"process not int", strings.Replace(okLine0, `"process":3`, `"process":"a"`, 1) + "\n",
			`history.jsonl:1: field "process": column 31: expected an integer, found '"'`},
		{"missing f", `{"index":0,"process":1,"type":"ok"}` + "\n", `history.jsonl:1: field "f": missing`},
		{"send without value", `{"index":0,"process":1,"type":"ok","f":"send","value":[{"f":"send","key":1}]}` + "\n",
			`history.jsonl:1: field "value[0]": send micro-op needs key and value`},
		{"unknown mop", `{"index":0,"process":1,"type":"ok","f":"txn","value":[{"f":"read"}]}` + "\n",
			`history.jsonl:1: field "value[0]": column 66: unknown micro-op "read"`},
		{"bad record key", `{"index":0,"process":1,"type":"ok","f":"poll","value":[{"f":"poll","records":{"x":[]}}]}` + "\n",
			`history.jsonl:1: field "value[0]": column 83: key "x" is not an integer`},
		{"broken middle line", okLine0 + "\n" + okLine1[:40] + "\n" + okLine1 + "\n",
			`history.jsonl:2: field "type": unexpected end of line`},
		{"trailing garbage", okLine0 + " x\n", `history.jsonl:1: column 103: trailing data after the op`},
		{"bad raw value", `{"index":0,"process":-1,"type":"info","f":"kill","value":{"a":tru}}` + "\n",
			`history.jsonl:1: field "value": column 63: invalid literal`},
	}
	for _, c := range cases {
		for _, read := range bothReads {
			t.Run(c.name+"/"+read.name, func(t *testing.T) {
				_, _, err := read.read(c.in)
				var pe *ParseError
				if !errors.As(err, &pe) || err.Error() != c.want {
					t.Fatalf("got  %v\nwant %s", err, c.want)
				}
			})
		}
	}
}

func TestReaderCutOffLastLine(t *testing.T) {
	for _, read := range bothReads {
		t.Run(read.name, func(t *testing.T) { testCutOffLastLine(t, read.read) })
	}
}

func testCutOffLastLine(t *testing.T, readString func(string) ([]Op, []Warning, error)) {
	ops, warns, err := readString(okLine0 + "\n" + okLine1[:50])
	if err != nil || len(ops) != 1 || len(warns) != 1 || warns[0].Line != 2 {
		t.Fatalf("ops %d, warnings %v, err %v", len(ops), warns, err)
	}
	if !strings.HasPrefix(warns[0].String(), "history.jsonl:2: last line is cut off") {
		t.Errorf("warning: %s", warns[0])
	}
	// A whole last line without its newline is simply the last op.
	ops, warns, err = readString(okLine0 + "\n" + okLine1)
	if err != nil || len(ops) != 2 || len(warns) != 0 {
		t.Fatalf("ops %d, warnings %v, err %v", len(ops), warns, err)
	}
}

func TestReaderLongLinesAndBlankLines(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{"index":0,"time":1,"process":3,"type":"ok","f":"poll","value":[{"f":"poll","records":{"1":[`)
	const n = 300000 // ~4 MB: several times the reader's buffer
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString("[1000000,2000000]")
	}
	sb.WriteString("]}}]}\n\n  \n" + strings.Replace(okLine1, `"index":1`, `"index":1`, 1) + "\n")
	ops, _, err := readString(sb.String())
	if err != nil || len(ops) != 2 || len(ops[0].Mops[0].Records[1]) != n {
		t.Fatalf("%d ops, err %v", len(ops), err)
	}
}

func TestScanReusesButCloneKeeps(t *testing.T) {
	in := `{"index":0,"time":1,"process":4,"type":"ok","f":"poll","value":[{"f":"poll","records":{"1":[[1,10]]}}]}` + "\n" +
		`{"index":1,"time":2,"process":4,"type":"ok","f":"poll","value":[{"f":"poll","records":{"1":[[2,20]]}}]}` + "\n" +
		`{"index":2,"time":3,"process":-1,"type":"info","f":"kill"}` + "\n"
	var kept []*Op
	err := NewReader(strings.NewReader(in), "h").Scan(func(op *Op) error {
		kept = append(kept, op.Clone())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if kept[0].Mops[0].Records[1][0].Value != 10 || kept[1].Mops[0].Records[1][0].Value != 20 {
		t.Fatalf("clones changed: %+v %+v", kept[0].Mops, kept[1].Mops)
	}
	if kept[2].Mops != nil || kept[2].F != "kill" {
		t.Fatalf("reused op kept old fields: %+v", kept[2])
	}
}

func TestScanStopsOnCallbackError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := NewReader(strings.NewReader(okLine0+"\n"+okLine1+"\n"), "h").Scan(func(*Op) error { n++; return stop })
	if err != stop || n != 1 {
		t.Fatalf("err %v after %d ops", err, n)
	}
}
