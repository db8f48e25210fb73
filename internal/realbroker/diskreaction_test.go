package realbroker

import (
	"strings"
	"testing"
)

func TestDiskReactionLines(t *testing.T) {
	for _, line := range []string{
		"[2026] ERROR Shutdown broker because all log dirs in /data have failed (kafka.log.LogManager)",
		"[2026] ERROR Error while appending records to in-0 in dir /d (org.apache.kafka.storage.internals.log.LogDirFailureChannel)",
		"java.lang.InternalError: a fault occurred in a recent unsafe memory access operation in compiled Java code",
		"[2026] ERROR Encountered fatal fault: Unexpected error in raft IO thread (org.apache.kafka.server.fault.ProcessTerminatingFaultHandler)",
	} {
		log := "[2026] INFO Started the log cleaner (kafka.log.LogCleaner)\n  " + line + "\n[2026] INFO later\n"
		if got := DiskReaction(strings.NewReader(log)); got != line {
			t.Errorf("DiskReaction = %q, want the reaction line %q", got, line)
		}
	}
	for _, line := range []string{
		"[2026] INFO [LogLoader partition=in-0, dir=/d] Loading producer state till offset 0 (org.apache.kafka.storage.internals.log.UnifiedLog)",
		"[2026] WARN [RaftManager id=1] Connection to node 2 (/10.213.69.2:9093) could not be established. Node may not be available.",
	} {
		if got := DiskReaction(strings.NewReader(line + "\n")); got != "" {
			t.Errorf("DiskReaction(%q) = %q: not a reaction to a failing disk", line, got)
		}
	}
}
