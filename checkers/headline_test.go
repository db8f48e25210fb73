package checkers_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
)

func ns(v int64) *int64 { return &v }

// A run whose sends stopped for 9.41 s in a kill window, came back 431 ms
// after the last heal, and whose slowest record was read 7.53 s after its
// ack.
func ExampleHeadline_Cells() {
	l := &checkers.Liveness{Live: true,
		Kinds: []checkers.KindLiveness{
			{Kind: "poll", MaxUnavailable: &checkers.Window{Ns: 12e9}, RecoveryNs: ns(4.04e9)},
			{Kind: "send", MaxUnavailable: &checkers.Window{Ns: 9.41e9}, RecoveryNs: ns(431e6)}},
		Stalls:           []checkers.Stall{{Fault: "kill", Kind: "send"}},
		WorstRealtimeLag: &checkers.RealtimeLag{Ns: 7.53e9}}
	fmt.Println(checkers.HeadlineColumns())
	fmt.Println(l.Headline().Cells())
	fmt.Println(l.Headline())
	// Output:
	// [send outage recovery stalls worst lag]
	// [9.41s 431ms 1 7.53s]
	// live, send outage 9.41s, recovery 431ms, stalls 1, worst lag 7.53s
}

func TestHeadline(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    *checkers.Liveness
		live bool
		want []string
	}{
		{"nothing to report", nil, true, []string{"-", "-", "0", "-"}},
		{"no fault: recovery not measured", &checkers.Liveness{Live: true,
			Kinds: []checkers.KindLiveness{{Kind: "send", MaxUnavailable: &checkers.Window{Ns: 2e6}}}},
			true, []string{"2ms", "-", "0", "-"}},
		{"sends never came back", &checkers.Liveness{Live: false,
			Kinds: []checkers.KindLiveness{{Kind: "send", MaxUnavailable: &checkers.Window{Ns: 3e9}, NeverRecovered: true}}},
			false, []string{"3s", "never", "0", "-"}},
		{"polls never came back, sends did", &checkers.Liveness{Live: false,
			Kinds: []checkers.KindLiveness{{Kind: "poll", NeverRecovered: true}, {Kind: "send", RecoveryNs: ns(0)}}},
			false, []string{"-", "0s", "0", "-"}},
	} {
		h := tc.l.Headline()
		if h.NotLive == tc.live || !slices.Equal(h.Cells(), tc.want) || strings.HasPrefix(h.String(), "live") != tc.live {
			t.Errorf("%s: not live %v, cells %q; want live %v, %q", tc.name, h.NotLive, h.Cells(), tc.live, tc.want)
		}
	}
	if (checkers.Headline{}) != (*checkers.Liveness)(nil).Headline() {
		t.Error("the zero Headline is not a run with nothing to report")
	}
}
