package generators

import (
	"testing"
	"time"
)

// TestPackagesMixFaultsOverTime: with Period set, every fault of a draw
// lies within one period, each can take effect, the draw keeps to
// MaxFaults, and over many draws periods differ: some get no fault, some
// several kinds at once, and the last third of a run gets its share.
func TestPackagesMixFaultsOverTime(t *testing.T) {
	sp := LongSpace()
	period := sp.Period
	var empty, mixed, late int
	for seed := range int64(200) {
		s := RandomIn(sp, seed)
		if len(s.Nemesis) < sp.MinFaults || len(s.Nemesis) > sp.MaxFaults {
			t.Fatalf("seed %d: %d faults, want %d..%d", seed, len(s.Nemesis), sp.MinFaults, sp.MaxFaults)
		}
		kindsIn := map[int]map[string]bool{}
		for i, f := range s.Nemesis {
			p := int(f.Start.D() / period)
			if end := f.End().D(); end > time.Duration(p+1)*period {
				t.Fatalf("seed %d: nemesis[%d] %s from %v to %v crosses its period's end %v", seed, i, f.Kind, f.Start, end, time.Duration(p+1)*period)
			}
			if err := Available(s, i); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if kindsIn[p] == nil {
				kindsIn[p] = map[string]bool{}
			}
			kindsIn[p][f.Kind] = true
			if f.Start.D() >= s.TimeLimit.D()*2/3 {
				late++
			}
		}
		periods := int((s.TimeLimit.D() + period - 1) / period)
		empty += periods - len(kindsIn)
		for _, ks := range kindsIn {
			if len(ks) > 1 {
				mixed++
			}
		}
	}
	if empty == 0 || mixed == 0 || late < 200 {
		t.Fatalf("over 200 draws: %d periods without faults, %d with several kinds, %d faults in the last third of their run; want > 0, > 0, >= one a draw", empty, mixed, late)
	}
	t.Logf("over 200 draws: %d empty periods, %d mixed, %d faults in the last third", empty, mixed, late)
}
