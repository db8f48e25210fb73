package histories

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestEDNJepsenHistory(t *testing.T) {
	ops, warns, err := ReadFile("testdata/jepsen-kafka.edn", FormatAuto)
	if err != nil || len(warns) > 0 {
		t.Fatalf("ReadFile: %v %v", err, warns)
	}
	if len(ops) != 30 {
		t.Fatalf("read %d ops, want 30", len(ops))
	}
	checks := []struct {
		i    int
		want Op
	}{
		{1, Op{Index: 1, Time: 13500000, Type: OK, Process: 0, F: FAssign, Keys: []Key{0, 1}}},
		{4, Op{Index: 4, Time: 20000000, Type: Invoke, Process: 2, F: FSend, Mops: []Mop{Send(0, 1), Send(1, 1)}}},
		{8, Op{Index: 8, Time: 45000000, Type: OK, Process: 3, F: FTxn, Mops: []Mop{
			{F: MSend, Key: 0, Value: 2, Offset: 1}, {F: MPoll, Offset: NoOffset, Records: map[Key][]Record{}}}}},
		{10, Op{Index: 10, Time: 60000000, Type: Info, Process: NemesisProcess, F: "start-partition", Value: json.RawMessage(`"majority"`)}},
		{14, Op{Index: 14, Time: 5070000000, Type: Info, Process: 2, F: FSend, Mops: []Mop{Send(1, 2)},
			Error: `[:timeout "Expiring 1 record(s) for jepsen-1-0"]`}},
		{15, Op{Index: 15, Time: 5090000000, Type: OK, Process: 1, F: FPoll,
			Mops:      []Mop{{F: MPoll, Offset: NoOffset, Records: map[Key][]Record{0: {{0, 1}, {1, 2}}}}},
			Rebalance: &Rebalance{Assigned: []Key{0, 1}},
			Extra:     map[string]json.RawMessage{"rebalance-log": json.RawMessage(`"[{:type :assigned, :keys [0 1]}]"`)}}},
		{22, Op{Index: 22, Time: 7000000000, Type: Invoke, Process: 6, F: FCrash}},
		{25, Op{Index: 25, Time: 7150000000, Type: OK, Process: 6, F: "debug-topic-partitions",
			Value: json.RawMessage(`{"0":{"partition":0,"leader":"n2","isr":["n1","n2","n3"]},"1":{"partition":1,"leader":"n3","isr":["n2","n3"]}}`)}},
		{27, Op{Index: 27, Time: 7210000000, Type: OK, Process: 6, F: FAssign, Keys: []Key{0, 1},
			Extra: map[string]json.RawMessage{"seek-to-beginning?": json.RawMessage(`"true"`)}}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(ops[c.i], c.want) {
			t.Errorf("op %d:\n got %+v\nwant %+v", c.i, ops[c.i], c.want)
		}
	}
	// Export, then import again: the same history.
	var buf bytes.Buffer
	if err := ExportEDN(&buf, FromOps(ops)); err != nil {
		t.Fatal(err)
	}
	again, _, err := ReadEDN(&buf, "again.edn")
	if err != nil || !reflect.DeepEqual(again, ops) {
		t.Fatalf("re-import: %v, %s", err, firstDiff(again, ops))
	}
}

func TestEDNForms(t *testing.T) {
	vector := `[{:type :invoke, :f :poll, :value [[:poll]], :process 0, :time 1}
 {"type" "ok", "f" "poll", "value" [["poll" {"3" [[7 70]]}]], "process" 0, "time" 2} ; string keys
 #_{:ignored true}
 {:type :info :f :kill :process :nemesis :value #{"n1"}}]`
	ops, warns, err := ReadEDN(strings.NewReader(vector), "v.edn")
	if err != nil || len(warns) > 0 {
		t.Fatalf("%v %v", err, warns)
	}
	if len(ops) != 3 || ops[2].Index != 2 || ops[2].Process != NemesisProcess || string(ops[2].Value) != `["n1"]` {
		t.Fatalf("ops: %+v", ops)
	}
	if got := ops[1].Mops[0].Records[3]; !reflect.DeepEqual(got, []Record{{7, 70}}) {
		t.Fatalf("string-keyed poll: %+v", ops[1].Mops)
	}
}

func TestEDNCutOffLastOp(t *testing.T) {
	in := "{:index 0 :type :invoke :f :poll :process 0 :value [[:poll]]}\n{:index 1 :type :ok :f :poll :process 0 :value [[:po"
	ops, warns, err := ReadEDN(strings.NewReader(in), "h.edn")
	if err != nil || len(ops) != 1 || len(warns) != 1 || warns[0].Line != 2 {
		t.Fatalf("ops %d, warnings %v, err %v", len(ops), warns, err)
	}
}

func TestEDNErrors(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"bad type", "{:index 0 :type :okk :f :poll :process 0}", `h.edn:1: field "type": unknown op type ":okk"`},
		{"missing f", "{:index 0 :type :ok :process 0}", `h.edn:1: field "f": missing`},
		{"bad process", "{:index 0 :type :ok :f :x :process :bob}", `h.edn:1: field "process": expected an integer or :nemesis`},
		{"index back", "{:index 0 :type :ok :f :x :process 1}\n{:index 2 :type :ok :f :x :process 1}\n{:index 1 :type :ok :f :x :process 1}", `h.edn:3: field "index": index 1 does not follow 2 (indexes must increase)`},
		{"mixed index", "{:index 0 :type :ok :f :x :process 1}\n{:type :ok :f :x :process 1}", `h.edn:2: field "index": some ops have an index and some do not`},
		{"bad mop", "{:type :ok :f :send :process 1 :value [[:send 1]]}", `h.edn:1: field "value": unknown or malformed micro-op`},
		{"bad pair", "{:type :ok :f :poll :process 1 :value [[:poll {1 [3]}]]}", `h.edn:1: field "value": expected [offset value]`},
		{"not a map", "[:a]", `h.edn:1: an op must be a map`},
		{"unclosed vector", "[{:type :ok :f :x :process 1}", `h.edn:1: history vector is not closed`},
		{"middle broken", "{:type :ok :f :x :process 1}\n{:type :ok :f :x :process 1 :value [}\n{:type :ok :f :x :process 1}", `h.edn:2: unexpected '}'`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ReadEDN(strings.NewReader(c.in), "h.edn")
			var pe *ParseError
			if !errors.As(err, &pe) || err.Error() != c.want {
				t.Fatalf("got %v, want %s", err, c.want)
			}
		})
	}
}

func TestOpenDetectsFormat(t *testing.T) {
	dir := t.TempDir()
	edn := dir + "/h" // no extension: sniffed
	if err := os.WriteFile(edn, []byte("{:type :ok :f :x :process 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ops, _, err := ReadFile(edn, FormatAuto)
	if err != nil || len(ops) != 1 {
		t.Fatalf("sniffed EDN: %v %v", ops, err)
	}
	jl := dir + "/j"
	if err := os.WriteFile(jl, []byte(`{"index":0,"type":"ok","f":"x","process":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ops, _, err = ReadFile(jl, FormatAuto)
	if err != nil || len(ops) != 1 || ops[0].F != "x" {
		t.Fatalf("sniffed JSONL: %v %v", ops, err)
	}
}
