package realbroker

import (
	"fmt"
	"strings"
)

// TBF is the tc arguments after "qdisc replace dev DEV" that cap a link at
// bitsPerSecond: this kernel has no netem, so a slow link is a bandwidth
// cap, not added latency.
func TBF(bitsPerSecond int64) []string {
	return []string{"root", "tbf", "rate", fmt.Sprintf("%dbit", bitsPerSecond), "burst", "32kbit", "latency", "500ms"}
}

// IgnoreNoQdisc makes deleting an absent root qdisc (tc's output out, its
// error err) a success, so that clearing a slow link is idempotent.
func IgnoreNoQdisc(out string, err error) error {
	if err != nil && (strings.Contains(out, "handle of zero") || strings.Contains(out, "No such file")) {
		return nil
	}
	return err
}
