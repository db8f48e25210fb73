package checkers

import "sort"

// caseSink collects cases per anomaly: exact counts, and the first MaxCases
// cases of each kind.
type caseSink struct {
	max    int
	cases  map[Anomaly][]Case
	counts map[Anomaly]int64
}

func newCaseSink(max int) *caseSink {
	return &caseSink{max: max, cases: map[Anomaly][]Case{}, counts: map[Anomaly]int64{}}
}

func (s *caseSink) add(a Anomaly, c Case) {
	s.counts[a]++
	if s.max > 0 && len(s.cases[a]) >= s.max {
		return
	}
	if c.Ops == nil {
		c.Ops = []int64{}
	}
	s.cases[a] = append(s.cases[a], c)
}

// merge adds o's cases to s. No anomaly may be in both: merging them would
// break MaxCases and the order cases were found in.
func (s *caseSink) merge(o *caseSink) {
	for a, n := range o.counts {
		s.counts[a] += n
		s.cases[a] = append(s.cases[a], o.cases[a]...)
	}
}

// types returns the anomalies found, sorted by name.
func (s *caseSink) types() []Anomaly {
	ts := make([]Anomaly, 0, len(s.counts))
	for a := range s.counts {
		ts = append(ts, a)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	return ts
}

// ptr returns a pointer to a copy of v, for Case's optional fields.
func ptr(v int64) *int64 { return &v }
