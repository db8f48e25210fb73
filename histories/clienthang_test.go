package histories

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

const hangLine = `{"index":3,"time":9,"process":4,"type":"info","f":"client-hang","value":{"call":"SendOffsetsToTransaction","timeout-ms":9900,"grace-ms":5000,"blocked-ms":15000}}`

func TestClientHangReadsAsAStandaloneOp(t *testing.T) {
	ops, warns, err := readString(okLine0 + "\n" + okLine1 + "\n" + strings.Replace(hangLine, `"index":3`, `"index":2`, 1) + "\n")
	if err != nil || len(warns) > 0 || len(ops) != 3 {
		t.Fatalf("ops %d, warnings %v, err %v", len(ops), warns, err)
	}
	h, err := ops[2].ClientHang()
	want := ClientHang{Call: "SendOffsetsToTransaction", TimeoutMs: 9900, GraceMs: 5000, BlockedMs: 15000}
	if err != nil || h != want {
		t.Fatalf("ClientHang() = %+v, %v; want %+v", h, err, want)
	}
}

func TestClientHangRoundTripsThroughEDN(t *testing.T) {
	ops, _, err := readString(okLine0 + "\n" + okLine1 + "\n" + strings.Replace(hangLine, `"index":3`, `"index":2`, 1) + "\n")
	if err != nil {
		t.Fatal(err)
	}
	var edn bytes.Buffer
	if err := ExportEDN(&edn, FromOps(ops)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(edn.String(), `:f :client-hang, :value {:call "SendOffsetsToTransaction", :timeout-ms 9900, :grace-ms 5000, :blocked-ms 15000}`) {
		t.Fatalf("EDN export does not spell the hang as a Jepsen op map:\n%s", edn.String())
	}
	again, warns, err := ReadEDN(&edn, "h.edn")
	if err != nil || len(warns) > 0 || !reflect.DeepEqual(again, ops) {
		t.Fatalf("EDN import: %v %v %s", err, warns, firstDiff(again, ops))
	}
}

func TestClientHangErrorsNameLineAndField(t *testing.T) {
	prefix := okLine0 + "\n" + okLine1 + "\n"
	hang := func(value string) string {
		return prefix + `{"index":2,"time":9,"process":4,"type":"info","f":"client-hang"` + value + "}\n"
	}
	cases := []struct{ name, in, want string }{
		{"no value", hang(""), `history.jsonl:3: field "value": a client-hang value is an object {"call", "timeout-ms", "grace-ms", "blocked-ms"}`},
		{"not an object", hang(`,"value":[1]`), `history.jsonl:3: field "value": a client-hang value is an object {"call", "timeout-ms", "grace-ms", "blocked-ms"}`},
		{"no call", hang(`,"value":{"timeout-ms":1,"blocked-ms":2}`), `history.jsonl:3: field "value.call": expected the name of the call, a non-empty string`},
		{"timeout not a number", hang(`,"value":{"call":"c","timeout-ms":"9s","blocked-ms":2}`), `history.jsonl:3: field "value.timeout-ms": expected a non-negative integer of milliseconds`},
		{"timeout null", hang(`,"value":{"call":"c","timeout-ms":null,"blocked-ms":2}`), `history.jsonl:3: field "value.timeout-ms": expected a non-negative integer of milliseconds`},
		{"no blocked", hang(`,"value":{"call":"c","timeout-ms":1}`), `history.jsonl:3: field "value.blocked-ms": expected a non-negative integer of milliseconds`},
		{"negative grace", hang(`,"value":{"call":"c","timeout-ms":1,"grace-ms":-1,"blocked-ms":2}`), `history.jsonl:3: field "value.grace-ms": expected a non-negative integer of milliseconds`},
		{"not info", strings.Replace(hang(`,"value":{"call":"c","timeout-ms":1,"blocked-ms":2}`), `"type":"info","f":"client`, `"type":"ok","f":"client`, 1),
			`history.jsonl:3: field "type": a client-hang op is info (the call's outcome is unknown), not ok`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := readString(c.in)
			var pe *ParseError
			if !errors.As(err, &pe) || err.Error() != c.want {
				t.Fatalf("got  %v\nwant %s", err, c.want)
			}
		})
	}
	// grace-ms may be left out; other fields are kept but not read.
	if _, _, err := readString(hang(`,"value":{"call":"c","timeout-ms":1,"blocked-ms":2,"stack":"..."}`)); err != nil {
		t.Fatalf("a hang without grace-ms: %v", err)
	}
}

func TestClientHangEDNErrorsNameLineAndField(t *testing.T) {
	in := "{:index 0 :type :ok :f :x :process 1}\n{:index 1 :type :info :f :client-hang :process 1\n :value {:call \"c\" :timeout-ms :soon :blocked-ms 2}}"
	_, _, err := ReadEDN(strings.NewReader(in), "h.edn")
	want := `h.edn:3: field "value.timeout-ms": expected a non-negative integer of milliseconds`
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
}

// Jepsen's own histories, and any filtered history, skip indexes: they are
// read, and keep the indexes they had.
func TestSparseIndexesAreKept(t *testing.T) {
	edn := "{:index 0 :type :ok :f :x :process 1}\n{:index 4 :type :ok :f :x :process 1}\n{:index 9 :type :ok :f :x :process 1}"
	ops, warns, err := ReadEDN(strings.NewReader(edn), "h.edn")
	if err != nil || len(warns) > 0 || len(ops) != 3 || ops[1].Index != 4 || ops[2].Index != 9 {
		t.Fatalf("EDN: ops %+v, warnings %v, err %v", ops, warns, err)
	}
	jsonl := okLine0 + "\n" + strings.Replace(okLine1, `"index":1`, `"index":3`, 1) + "\n" + strings.Replace(hangLine, `"index":3`, `"index":7`, 1) + "\n"
	ops, warns, err = readString(jsonl)
	if err != nil || len(ops) != 3 || ops[1].Index != 3 || ops[2].Index != 7 {
		t.Fatalf("JSONL: ops %+v, err %v", ops, err)
	}
	// A recorded history is dense: the first gap is worth one warning.
	if len(warns) != 1 || warns[0].Line != 2 || !strings.Contains(warns[0].Msg, "not dense from 0: 3 after 0") {
		t.Fatalf("JSONL warnings: %v, want one at line 2", warns)
	}
}
