package histories

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
)

// benchOps builds a realistic mix: sends and polls, invokes and
// completions, the odd txn and nemesis op.
func benchOps(n int) []Op {
	ops := make([]Op, 0, n)
	next := map[Key]int64{}
	read := map[Key]int64{}
	for i := 0; len(ops) < n; i++ {
		k := Key(i % 8)
		p := int64(i % 16)
		switch {
		case i%100 == 99:
			ops = append(ops, Op{Process: NemesisProcess, Type: Info, F: "kill", Value: json.RawMessage(`{"nodes":[2]}`)})
		case i%2 == 0:
			v := int64(i)
			ops = append(ops, Op{Process: p, Type: Invoke, F: FSend, Mops: []Mop{Send(k, v)}})
			ops = append(ops, Op{Process: p, Type: OK, F: FSend, Mops: []Mop{{F: MSend, Key: k, Value: v, Offset: next[k]}}})
			next[k]++
		default:
			recs := []Record{}
			for o := read[k]; o < next[k] && len(recs) < 5; o++ {
				recs = append(recs, Record{Offset: o, Value: o * 7})
			}
			read[k] += int64(len(recs))
			ops = append(ops, Op{Process: p, Type: Invoke, F: FPoll, Mops: []Mop{{F: MPoll, Offset: NoOffset}}})
			ops = append(ops, Op{Process: p, Type: OK, F: FPoll, Group: "g1",
				Mops: []Mop{{F: MPoll, Offset: NoOffset, Records: map[Key][]Record{k: recs}}}})
		}
	}
	ops = ops[:n]
	for i := range ops {
		ops[i].Index = int64(i)
		ops[i].Time = int64(i) * 1000
	}
	return ops
}

func benchJSONL(b *testing.B, n int) []byte {
	b.Helper()
	var buf bytes.Buffer
	if err := ExportJSONL(&buf, FromOps(benchOps(n))); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

const benchN = 100000

func reportOps(b *testing.B, perIter int) {
	b.ReportMetric(float64(perIter)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

func BenchmarkEncode(b *testing.B) {
	ops := benchOps(benchN)
	size := len(benchJSONL(b, benchN))
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var line []byte
	for b.Loop() {
		for i := range ops {
			line, _ = AppendJSON(line[:0], &ops[i])
		}
	}
	reportOps(b, len(ops))
}

func BenchmarkDecodeScan(b *testing.B) {
	data := benchJSONL(b, benchN)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := NewReader(bytes.NewReader(data), "h").Scan(func(*Op) error { n++; return nil }); err != nil || n != benchN {
			b.Fatal(err, n)
		}
	}
	reportOps(b, benchN)
}

func BenchmarkDecodeNext(b *testing.B) {
	data := benchJSONL(b, benchN)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(data), "h")
		for range benchN {
			if _, err := r.Next(); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportOps(b, benchN)
}

// stdOp is what decoding with encoding/json would need: the baseline the
// hand-written scanner is measured against.
type stdOp struct {
	Index, Time, Process int64
	Type, F              string
	Value                json.RawMessage
	Group, Error         string
	Rebalance            *Rebalance
}

type stdMop struct {
	F          string
	Key, Value int64
	Offset     *int64
	Records    map[string][][2]int64
	Offsets    map[string]int64
}

func BenchmarkDecodeEncodingJSON(b *testing.B) {
	data := benchJSONL(b, benchN)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 1<<30)
		for sc.Scan() {
			var op stdOp
			if err := json.Unmarshal(sc.Bytes(), &op); err != nil {
				b.Fatal(err)
			}
			var mops []stdMop
			if op.F == FSend || op.F == FPoll {
				if err := json.Unmarshal(op.Value, &mops); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	reportOps(b, benchN)
}

func BenchmarkEDNExport(b *testing.B) {
	ops := benchOps(benchN)
	b.ReportAllocs()
	var line []byte
	for b.Loop() {
		for i := range ops {
			line, _ = AppendEDN(line[:0], &ops[i])
		}
	}
	reportOps(b, len(ops))
}

func BenchmarkEDNImport(b *testing.B) {
	var buf bytes.Buffer
	if err := ExportEDN(&buf, FromOps(benchOps(benchN))); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := NewEDNReader(bytes.NewReader(data), "h").Scan(func(*Op) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	reportOps(b, benchN)
}
