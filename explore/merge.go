package explore

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
)

// Merge is the output of the campaign whose shards' outputs are outs
// (named in errors by names): their draws, findings and shrinks together,
// by draw. It refuses outputs not of one campaign (space, claim,
// generators' space, seed, bound or shard count differ) and outputs that
// hold the same shard or the same draw (the same generators' seed) twice.
func Merge(names []string, outs []Output) (Output, error) {
	if len(outs) == 0 {
		return Output{}, fmt.Errorf("merge: no outputs")
	}
	m := outs[0]
	m.Shards, m.Drawn, m.Violations, m.NotLive, m.Shrunk = nil, nil, nil, nil, nil
	owner := map[Shard]string{}
	seeds := map[int64]string{}
	for k, o := range outs {
		if err := sameCampaign(outs[0], o); err != nil {
			return Output{}, fmt.Errorf("%s: not of %s's campaign: %w", names[k], names[0], err)
		}
		for _, sh := range o.Shards {
			if prev, dup := owner[sh]; dup {
				return Output{}, fmt.Errorf("%s: shard %s is also in %s", names[k], sh, prev)
			}
			owner[sh] = names[k]
		}
		for _, d := range o.Drawn {
			if prev, dup := seeds[d.Seed]; dup {
				return Output{}, fmt.Errorf("%s: draw %d (seed %d) is also in %s", names[k], d.Index, d.Seed, prev)
			}
			seeds[d.Seed] = names[k]
		}
		m.Shards = append(m.Shards, o.Shards...)
		m.Drawn = append(m.Drawn, o.Drawn...)
		m.Violations = append(m.Violations, o.Violations...)
		m.NotLive = append(m.NotLive, o.NotLive...)
		m.Shrunk = append(m.Shrunk, o.Shrunk...)
		if o.LastError != "" {
			m.LastError = o.LastError
		}
	}
	m.Summary = mergeSummaries(outs)
	sortMerged(&m)
	return m, nil
}

// sameCampaign says how o is of another campaign than first, nil when it
// is of the same.
func sameCampaign(first, o Output) error {
	switch {
	case o.Space != first.Space || o.Claim != first.Claim:
		return fmt.Errorf("space %s (claim %s), want %s (claim %s)", o.Space, o.Claim, first.Space, first.Claim)
	case o.Seed != first.Seed:
		return fmt.Errorf("seed %d, want %d", o.Seed, first.Seed)
	case o.Client != first.Client:
		return fmt.Errorf("client %q, want %q", o.Client, first.Client)
	case o.Draws != first.Draws:
		return fmt.Errorf("draws bound %d, want %d", o.Draws, first.Draws)
	case o.Shards[0].whole().N != first.Shards[0].whole().N:
		return fmt.Errorf("shards of %d, want of %d", o.Shards[0].whole().N, first.Shards[0].whole().N)
	}
	return genDiff(first.Gen, o.Gen)
}

// genDiff names the first field of the generators' space where b differs
// from a.
func genDiff(a, b any) error {
	var fa, fb map[string]json.RawMessage
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if err := json.Unmarshal(ja, &fa); err != nil {
		return err
	}
	if err := json.Unmarshal(jb, &fb); err != nil {
		return err
	}
	keys := make([]string, 0, len(fa))
	for k := range fa {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !bytes.Equal(fa[k], fb[k]) {
			return fmt.Errorf("generator-space field %s is %s, want %s", k, fb[k], fa[k])
		}
	}
	return nil
}

// mergeSummaries adds the shards' numbers; the elapsed time is the
// longest shard's, as shards run side by side.
func mergeSummaries(outs []Output) Summary {
	var s Summary
	for _, o := range outs {
		s.Draws += o.Summary.Draws
		s.Errors += o.Summary.Errors
		s.NotLive += o.Summary.NotLive
		s.FaultsFired += o.Summary.FaultsFired
		s.ElapsedNs = max(s.ElapsedNs, o.Summary.ElapsedNs)
		s.Clusters += o.Summary.Clusters
		s.SimulatedNs += o.Summary.SimulatedNs
		s.LateRequests = s.LateRequests.Add(o.Summary.LateRequests)
	}
	if s.Clusters > 0 {
		s.DrawsPerCluster = float64(s.Draws) / float64(s.Clusters)
	}
	return s
}

func sortMerged(m *Output) {
	slices.SortFunc(m.Shards, func(a, b Shard) int { return cmp.Compare(a.I, b.I) })
	slices.SortFunc(m.Drawn, func(a, b Drawn) int { return cmp.Compare(a.Index, b.Index) })
	byDraw := func(a, b Finding) int { return cmp.Compare(a.Draw, b.Draw) }
	slices.SortFunc(m.Violations, byDraw)
	slices.SortFunc(m.NotLive, byDraw)
	slices.SortFunc(m.Shrunk, func(a, b ShrinkRecord) int { return cmp.Compare(a.Draw, b.Draw) })
}
