package histories

import (
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// fastAgreesJSONL decodes line through the fast path and the general
// decoder and fails when the fast path read it otherwise; it reports
// whether the fast path read it.
func fastAgreesJSONL(t interface{ Fatalf(string, ...any) }, line []byte) bool {
	fd, gd := newDecoder(ownFresh), newDecoder(ownFresh)
	var fast, general Op
	fd.reset(&fast)
	if !fd.fast(line, &fast) {
		if !reflect.DeepEqual(fast, Op{}) || len(fd.slab)+len(fd.mopBuf)+len(fd.keyBuf)+fd.recsUsed+fd.offsUsed > 0 {
			t.Fatalf("the fast path gave up on %s but kept %+v", line, fast)
		}
		return false
	}
	gd.reset(&general)
	if err := gd.general(line, &general); err != nil {
		t.Fatalf("the fast path read %s, which the general decoder refuses: %v", line, err)
	}
	if !reflect.DeepEqual(fast, general) {
		t.Fatalf("line %s:\nfast    %+v\ngeneral %+v", line, fast, general)
	}
	return true
}

// usualShape reports whether op is laid out as the fast path reads it: a
// client op of a structured f with no extra fields and plain strings.
func usualShape(op *Op) bool {
	plain := func(s string) bool { return !strings.ContainsAny(s, "\"\\\n") }
	return structured(op.F) && op.Extra == nil && plain(op.Group) && plain(op.Error)
}

func TestJSONLFastPathAgreesWithTheGeneralDecoder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		op := genOp(t, rapid.Int64Range(0, 1<<40).Draw(t, "index"))
		line, err := AppendJSON(nil, &op)
		if err != nil {
			t.Fatal(err)
		}
		if read := fastAgreesJSONL(t, line); read != usualShape(&op) {
			t.Fatalf("the fast path read %s: %v, want %v", line, read, usualShape(&op))
		}
	})
}

// TestJSONLFastPathShapes: the layouts the fast path must leave to the
// general decoder, which reads them or says what is wrong.
func TestJSONLFastPathShapes(t *testing.T) {
	for _, tc := range []struct {
		line string
		fast bool
	}{
		{`{"index":1,"time":2,"process":3,"type":"ok","f":"send","value":[{"f":"send","key":0,"value":4,"offset":5}]}`, true},
		{`{"index":1,"time":2,"process":3,"type":"ok","f":"poll","value":[{"f":"poll","records":{"0":[[1,2],[3,4]],"1":[]}},{"f":"poll"}],"group":"g","rebalance":{"revoked":[1],"assigned":[]}}`, true},
		{`{"index":1,"time":2,"process":3,"type":"fail","f":"commit","value":[{"f":"commit","offsets":{"2":7}}],"error":"no"}`, true},
		{`{"index":1,"time":2,"process":3,"type":"invoke","f":"assign","value":[0,3]}`, true},
		{`{"index":1,"time":2,"process":3,"type":"ok","f":"poll","value":[{"f":"poll","records":{"0":[[1,2]],"0":[[3,4]]}}]}`, false}, // key twice: an error
		{`{"index":1,"time":2,"process":3,"type":"ok","f":"send","value":[{"f":"send","key":0,"value":01}]}`, false},                  // leading zero: an error
		{`{"index":1,"time":2,"process":3,"type":"ok","f":"send","value":[{"f":"send","key":0,"value":1.5}]}`, false},                 // a fraction: an error
		{`{"index":1,"time":2,"process":3,"type":"ok","f":"send","value":[{"f":"send","key":0,"value":12345678901234567890}]}`, false},
		{`{"index":1,"time":2,"process":3,"type":"ok","f":"send","value":[{"f":"send","key":0,"value":4,"offset":null}]}`, false},
		{`{"index":1, "time":2,"process":3,"type":"ok","f":"send","value":[]}`, false},             // white space
		{`{"time":2,"index":1,"process":3,"type":"ok","f":"send","value":[]}`, false},              // another order
		{`{"index":1,"time":2,"process":3,"type":"ok","f":"send","value":[],"final":true}`, false}, // an extra field
		{`{"index":1,"time":2,"process":3,"type":"ok","f":"poll","value":[],"group":"a\"b"}`, false},
		{`{"index":1,"time":2,"process":3,"type":"ok","f":"send","value":[]} `, false},
		{`{"index":1,"time":2,"process":3,"type":"info","f":"kill","value":{"nodes":[1]}}`, false},
		{`{"index":1,"time":2,"process":3,"type":"ok","f":"send","value":[{"f":"send","key":0,"value":4}`, false}, // cut off
	} {
		if got := fastAgreesJSONL(t, []byte(tc.line)); got != tc.fast {
			t.Errorf("%s: fast path read it: %v, want %v", tc.line, got, tc.fast)
		}
	}
}

// FuzzJSONLFast: whatever the fast path reads, the general decoder reads
// the same.
func FuzzJSONLFast(f *testing.F) {
	for _, s := range []string{
		`{"index":1,"time":2,"process":3,"type":"ok","f":"send","value":[{"f":"send","key":0,"value":4,"offset":5}]}`,
		`{"index":1,"time":2,"process":3,"type":"ok","f":"poll","value":[{"f":"poll","records":{"0":[[1,2],[3,4]],"1":[]}}],"group":"g","rebalance":{"revoked":[1],"assigned":[2]}}`,
		`{"index":1,"time":2,"process":3,"type":"fail","f":"commit","value":[{"f":"commit","offsets":{"2":7}}],"error":"no"}`,
		`{"index":1,"time":2,"process":3,"type":"invoke","f":"subscribe","value":[0,3]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { fastAgreesJSONL(t, line) })
}
