package histories

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// tb is what fastAgrees needs of a test: testing.TB or rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// fastAgrees reads every top-level op form of data with the fast path and
// with the parser, and fails where the fast path answered differently. It
// returns how many forms the fast path read.
//
// The ops share one slab, as a chunk's do, with runs of 2 ops; at the end
// every op read must still be what it was (no op's part of the slab was
// handed to another).
func fastAgrees(t tb, data []byte) (read, forms int) {
	t.Helper()
	q := ednParser{b: data}
	slab := &ednSlab{run: 2}
	var got, wanted []*Op
	defer func() {
		for i := range got {
			if !reflect.DeepEqual(got[i], wanted[i]) {
				t.Fatalf("op %d changed after it was read:\nfast   %+v\nparser %+v", i, got[i], wanted[i])
			}
		}
	}()
	for {
		if err := q.ws(0); err != nil {
			t.Fatalf("at %d: %v", q.i, err)
		}
		if q.i < len(q.b) && (q.b[q.i] == '[' || q.b[q.i] == ']') {
			q.i++ // a history written as one vector
			continue
		}
		if q.i >= len(q.b) {
			return read, forms
		}
		start := q.i
		q.reclaim()
		v, err := q.value(0)
		if err != nil {
			t.Fatalf("at %d: %v", start, err)
		}
		forms++
		want, wantIndex, err := ednOp(&v, data)
		op, hasIndex, end, ok := ednFast(data, start, slab)
		if !ok {
			continue
		}
		read++
		if err != nil {
			t.Fatalf("the fast path read %q, which the parser refuses: %v", data[start:q.i], err)
		}
		if !reflect.DeepEqual(op, want) || hasIndex != wantIndex || end != q.i {
			t.Fatalf("form %q:\nfast   %+v index %v end %d\nparser %+v index %v end %d", data[start:q.i], op, hasIndex, end, want, wantIndex, q.i)
		}
		got, wanted = append(got, op), append(wanted, want)
	}
}

// The fast path reads every op of a generated history as the parser does,
// or leaves it to the parser.
func TestEDNFastPathAgreesWithTheParser(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var buf bytes.Buffer
		if err := ExportEDN(&buf, FromOps(genHistory(t))); err != nil {
			t.Fatal(err)
		}
		fastAgrees(t, buf.Bytes())
	})
}

// Forms the fast path must leave to the parser, and forms it must read.
func TestEDNFastPathShapes(t *testing.T) {
	for _, tc := range []struct {
		form string
		read bool
	}{
		{`{:index 1, :time 2, :process 3, :type :ok, :f :send, :value [[:send 0 [4 5]]]}`, true},
		{`{:type :ok, :f :poll, :process 3, :value [[:poll {0 [[1 2] [3 4]], 1 []}] [:poll]], :group "g"}`, true},
		{`{:index 1, :type :invoke, :f :assign, :process 0, :value [0 1 2]}`, true},
		{`{:index 1, :type :ok, :f :send, :process 0, :value [[:send 0 [nil 5]]]}`, false},
		{`{:index 1, :type :ok, :process 0, :value [[:send 0 5]], :f :send}`, false},
		{`{:index 1, :type :ok, :f :send, :process 0, :value [[:send 0 5]], :error "x"}`, false},
		{`{:index 1, :type :ok, :f :send, :process :nemesis, :value nil}`, false},
		{`{:index 1, :type :ok, :f :txn, :process 0, :value [[:commit {0 1}]]}`, true},
		{`{:index 1, :type :ok, :f :commit, :process 0, :value [[:commit {0 1, 2 3}] [:commit]], :group "g"}`, true},
		{`{:index 1, :type :ok, :f :commit, :process 0, :value [[:commit {0 1, 0 3}]]}`, false},
		{`{:index 1, :type :ok, :f :commit, :process 0, :value [[:commit nil]]}`, false},
		{`{:index 1, :type :ok, :f :poll, :process 0, :value [], :rebalance {:revoked [1 2], :assigned []}}`, true},
		{`{:index 1, :type :ok, :f :poll, :process 0, :value [], :rebalance {:assigned [3]}}`, true},
		{`{:index 1, :type :ok, :f :poll, :process 0, :value [], :rebalance {}}`, true},
		{`{:index 1, :type :ok, :f :poll, :process 0, :value [], :rebalance nil}`, false},
		{`{:index 1, :type :ok, :f :poll, :process 0, :value [], :rebalance {:assigned [3], :assigned [4]}}`, false},
		{`{:index 1, :type :ok, :f :poll, :process 0, :value [], :rebalance {:moved [3]}}`, false},
		{`{:index 1, :type :ok, :f :send, :process 0, :value [[:send 0 5N]]}`, false},
		{`{:index 1, :type :ok, :f :send, :process 0, :value [[:send 0 5]], :value [[:send 0 6]]}`, false},
		{`{:index 1, :type :ok, :f :poll, :process 0, :value [[:poll {0 [[1 2]], 0 [[3 4]]}]]}`, false},
		{`{:index 1, :type :ok, :f :send, :process 0, :group "a\"b", :value []}`, false},
		{`#jepsen.history.Op{:index 1, :type :ok, :f :send, :process 0, :value [], :poll-ms 100}`, true},
		{`#other.Op{:index 1, :type :ok, :f :send, :process 0, :value []}`, false},
		{`{:index 1, :type :ok, :f :poll, :process 0, :value [], :rebalance-log [{:type :assigned, :keys [0 1]}]}`, false},
		{`{:index 1, :type :ok, :f :assign, :process 0, :value [0 1], :seek-to-beginning? true}`, false},
		{`{:index 1, :type :ok, :f :send, :process 0, :value [[:send 0 5]]`, false},
	} {
		if _, _, _, ok := ednFast([]byte(tc.form), 0, nil); ok != tc.read {
			t.Errorf("%s: fast path read %v, want %v", tc.form, ok, tc.read)
		}
		if tc.read {
			fastAgrees(t, []byte(tc.form))
		}
	}
}

// Jepsen's own history and the benchmark's: the fast path reads their
// client ops without errors, the same as the parser (Jepsen's small one is
// half nemesis, error and debug ops).
func TestEDNFastPathReadsMostOps(t *testing.T) {
	jepsen, err := os.ReadFile("testdata/jepsen-kafka.edn")
	if err != nil {
		t.Fatal(err)
	}
	var bench bytes.Buffer
	if err := ExportEDN(&bench, FromOps(benchOps(20000))); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want float64
	}{{"jepsen-kafka.edn", jepsen, 0.5}, {"bench", bench.Bytes(), 0.99}} {
		read, forms := fastAgrees(t, tc.data)
		t.Logf("%s: the fast path read %d of %d ops", tc.name, read, forms)
		if forms == 0 || float64(read) < tc.want*float64(forms) {
			t.Errorf("%s: the fast path read %d of %d ops, want at least %.0f%%", tc.name, read, forms, 100*tc.want)
		}
	}
}

// FuzzEDNFast: whatever the fast path reads, the parser reads the same.
func FuzzEDNFast(f *testing.F) {
	for _, s := range []string{
		`{:index 1, :time 2, :process 3, :type :ok, :f :send, :value [[:send 0 [4 5]]]}`,
		`#jepsen.history.Op{:type :ok, :f :poll, :process 3, :value [[:poll {0 [[1 2] [3 4]], 1 []}] [:poll]], :group "g", :poll-ms 7}`,
		`{:index 1, :type :invoke, :f :assign, :process 0, :value [0 1 2]}`,
	} {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{:index 1, :type :ok, :f :commit, :process 0, :value [[:commit {0 1, 2 3}]], :rebalance {:revoked [1], :assigned [2]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		op, hasIndex, end, ok := ednFast(data, 0, nil)
		if !ok {
			return
		}
		q := ednParser{b: data}
		v, err := q.value(0)
		if err != nil {
			t.Fatalf("the fast path read %q, which the parser cannot: %v", data, err)
		}
		want, wantIndex, err := ednOp(&v, data)
		if err != nil {
			t.Fatalf("the fast path read %q, which the parser refuses: %v", data, err)
		}
		if !reflect.DeepEqual(op, want) || hasIndex != wantIndex || end != q.i {
			t.Fatalf("form %q:\nfast   %+v index %v end %d\nparser %+v index %v end %d", data, op, hasIndex, end, want, wantIndex, q.i)
		}
	})
}
