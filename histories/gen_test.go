package histories

import (
	"encoding/json"

	"pgregory.net/rapid"
)

// genOp generates a valid op with the given index, in the normal form both
// readers produce (empty slices are nil; raw JSON and EDN texts canonical).
func genOp(t *rapid.T, index int64) Op {
	op := Op{
		Index:   index,
		Time:    rapid.Int64Range(0, 1<<50).Draw(t, "time"),
		Process: rapid.Int64Range(-1, 50).Draw(t, "process"),
		Type:    rapid.SampledFrom([]Type{Invoke, OK, Fail, Info}).Draw(t, "type"),
		F:       rapid.SampledFrom([]string{FSend, FPoll, FTxn, FCommit, FAssign, FSubscribe, FCrash, FClientHang, "kill", "start-partition", "odd name"}).Draw(t, "f"),
	}
	switch op.F {
	case FClientHang:
		op.Type = Info
		op.Value = rapid.SampledFrom([]json.RawMessage{
			json.RawMessage(`{"call":"SendOffsetsToTransaction","timeout-ms":9900,"grace-ms":5000,"blocked-ms":15000}`),
			json.RawMessage(`{"call":"Flush","timeout-ms":0,"blocked-ms":1}`)}).Draw(t, "hang")
	case FSend, FPoll, FTxn, FCommit:
		op.Mops = rapid.SliceOfN(rapid.Custom(genMop), 0, 4).Draw(t, "mops")
		if len(op.Mops) == 0 {
			op.Mops = nil
		}
	case FAssign, FSubscribe:
		op.Keys = genKeys(t, "keys")
	default:
		op.Value = rapid.SampledFrom([]json.RawMessage{nil, json.RawMessage(`null`), json.RawMessage(`{"nodes":[2,3],"why":"a \"b\"\n"}`),
			json.RawMessage(`"majority"`), json.RawMessage(`[1.5,-2,true,false,{}]`), json.RawMessage(`{"x y":{"z":[]}}`)}).Draw(t, "value")
	}
	if rapid.Bool().Draw(t, "hasGroup") {
		op.Group = rapid.StringMatching(`[a-z0-9 "\\]{1,8}`).Draw(t, "group")
	}
	if rapid.Bool().Draw(t, "hasRebalance") {
		op.Rebalance = &Rebalance{Revoked: genKeys(t, "revoked"), Assigned: genKeys(t, "assigned")}
	}
	if rapid.Bool().Draw(t, "hasError") {
		op.Error = rapid.SampledFrom([]string{"timeout", ":timeout", "Local: Timed out", `[:unknown "x"]`, "a \"quoted\"\nline", `"in quotes"`, "nil"}).Draw(t, "error")
	}
	if rapid.Bool().Draw(t, "hasExtra") {
		op.Extra = map[string]json.RawMessage{}
		for _, name := range rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"poll-ms", "seek-to-beginning?", "debug", "rebalance-log", "a b"}), 1, 3, rapid.ID[string]).Draw(t, "extraNames") {
			op.Extra[name] = appendString(nil, rapid.SampledFrom([]string{"1000", "true", "{:a [1 2]}", "[{:type :revoked, :keys [1 2]}]", "plain text", "#{:a}"}).Draw(t, "extra"))
		}
	}
	return op
}

func genKeys(t *rapid.T, label string) []Key {
	ks := rapid.SliceOfN(rapid.Int64Range(0, 20), 0, 4).Draw(t, label)
	if len(ks) == 0 {
		return nil
	}
	return ks
}

func genMop(t *rapid.T) Mop {
	switch rapid.IntRange(0, 2).Draw(t, "mopKind") {
	case 0:
		return Mop{F: MSend, Key: rapid.Int64Range(0, 20).Draw(t, "key"), Value: rapid.Int64().Draw(t, "value"),
			Offset: rapid.Int64Range(NoOffset, 1<<40).Draw(t, "offset")}
	case 1:
		m := Mop{F: MPoll, Offset: NoOffset}
		if rapid.Bool().Draw(t, "hasRecords") {
			m.Records = map[Key][]Record{}
			for _, k := range rapid.SliceOfNDistinct(rapid.Int64Range(0, 20), 0, 3, rapid.ID[int64]).Draw(t, "pollKeys") {
				var recs []Record
				for _, o := range rapid.SliceOfN(rapid.Int64Range(NoOffset, 1<<40), 0, 4).Draw(t, "offsets") {
					recs = append(recs, Record{Offset: o, Value: rapid.Int64().Draw(t, "v")})
				}
				m.Records[k] = recs
			}
		}
		return m
	}
	m := Mop{F: MCommit, Offset: NoOffset}
	if rapid.Bool().Draw(t, "hasOffsets") {
		m.Offsets = map[Key]int64{}
		for _, k := range rapid.SliceOfNDistinct(rapid.Int64Range(0, 20), 0, 3, rapid.ID[int64]).Draw(t, "commitKeys") {
			m.Offsets[k] = rapid.Int64Range(0, 1<<40).Draw(t, "o")
		}
	}
	return m
}

// genHistory's indexes increase, and may skip as Jepsen's and filtered
// histories do.
func genHistory(t *rapid.T) []Op {
	n := rapid.IntRange(0, 20).Draw(t, "n")
	ops := make([]Op, n)
	index := int64(rapid.IntRange(0, 2).Draw(t, "first"))
	for i := range ops {
		ops[i] = genOp(t, index)
		index += int64(rapid.IntRange(1, 3).Draw(t, "step"))
	}
	return ops
}
