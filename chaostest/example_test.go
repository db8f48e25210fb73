package chaostest_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/kafkachaos/kafkachaos/chaostest"
	"github.com/kafkachaos/kafkachaos/chaostest/examples/ctp"
)

// The test a team writes for its consume-transform-produce service is five
// lines:
//
//	func TestServiceIsExactlyOnce(t *testing.T) {
//		chaostest.Check(t, chaostest.ExactlyOnce, ctp.Service, chaostest.Options{Faults: []chaostest.Fault{
//			chaostest.KillBroker(500*time.Millisecond, time.Second),
//			chaostest.CrashService(300*time.Millisecond, 2*time.Second, 400*time.Millisecond)}})
//	}
//
// Run is the same check without a *testing.T: here the transactional
// service of examples/ctp, while a broker of the embedded cluster dies and
// the service crashes three times.
func Example() {
	root, _ := os.MkdirTemp("", "runs")
	defer os.RemoveAll(root)
	v, err := chaostest.Run(context.Background(), chaostest.ExactlyOnce, ctp.Service, chaostest.Options{RunsDir: root,
		Faults: []chaostest.Fault{
			chaostest.KillBroker(500*time.Millisecond, time.Second),
			chaostest.CrashService(300*time.Millisecond, 1200*time.Millisecond, 600*time.Millisecond)}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("observed:", v.Observed, "held:", v.Held)
	// How many of the 300 input sends are acknowledged is timing: one in
	// flight when the broker dies may end info (seen on a loaded machine:
	// 299), so the example prints what must hold whatever that number is.
	fmt.Println("some acknowledged:", v.Acked > 0, "all delivered:", v.Delivered >= v.Acked,
		"lost:", len(v.Lost), "duplicated:", len(v.Duplicated))
	// Output:
	// observed: exactly-once held: true
	// some acknowledged: true all delivered: true lost: 0 duplicated: 0
}
