package realbroker

import (
	"bufio"
	"io"
	"regexp"
	"strings"
)

// diskReaction is how a broker's log says it met a failing disk: a log
// directory marked offline, the broker halting because none is left, or a
// read of a memory-mapped index failing (the JVM's SIGBUS handler turns it
// into an InternalError; in the raft IO thread it ends the process).
var diskReaction = regexp.MustCompile(`(?i)(log ?dir\S* .*offline|offline log dir|all log dirs .* have failed|Shutdown broker because|Halting|KafkaStorageException|Error while (appending|writing|reading|flushing)|InternalError: a fault occurred|Encountered fatal fault)`)

// DiskReaction is the first line of a broker's log read from r that shows
// it met a failing disk (trimmed), or "".
func DiskReaction(r io.Reader) string {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if diskReaction.MatchString(sc.Text()) {
			return strings.TrimSpace(sc.Text())
		}
	}
	return ""
}
