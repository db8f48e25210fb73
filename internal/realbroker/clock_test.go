package realbroker

import (
	"hash/crc32"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The probe's batch is what a broker accepts: its length and CRC-32C
// cover what Kafka says they cover, and its one record reads back.
func TestOneRecordBatchIsWellFormed(t *testing.T) {
	raw := oneRecordBatch(1_700_000_000_123)
	var b kmsg.RecordBatch
	if err := b.ReadFrom(raw); err != nil {
		t.Fatal(err)
	}
	if int(b.Length) != len(raw)-12 {
		t.Errorf("length %d, want %d (everything after FirstOffset and Length)", b.Length, len(raw)-12)
	}
	if want := int32(crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli))); b.CRC != want || want == 0 {
		t.Errorf("crc %d, want %d", b.CRC, want)
	}
	if b.Magic != 2 || b.NumRecords != 1 || b.FirstTimestamp != 1_700_000_000_123 || b.ProducerID != -1 {
		t.Errorf("batch %+v", b)
	}
	var r kmsg.Record
	if err := r.ReadFrom(b.Records); err != nil {
		t.Fatal(err)
	}
	if string(r.Value) != "clock probe" || int(r.Length) != len(b.Records)-1 {
		t.Errorf("record %+v (%d bytes)", r, len(b.Records))
	}
}
