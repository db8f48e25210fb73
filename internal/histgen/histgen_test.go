package histgen_test

import (
	"bytes"
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/histgen"
)

func write(t *testing.T, cfg histgen.Config) ([]byte, histgen.Planted) {
	t.Helper()
	var buf bytes.Buffer
	planted, err := histgen.Write(&buf, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), planted
}

func TestWritePlantsWhatItWasAskedDeterministically(t *testing.T) {
	cfg := histgen.Config{Ops: 50_000, Keys: 4, Processes: 8, LostWrites: 5, Duplicates: 6, Seed: 3}
	a, planted := write(t, cfg)
	if planted.LostWrites != 5 || planted.Duplicates != 6 {
		t.Fatalf("planted %+v, want 5 lost writes and 6 duplicates", planted)
	}
	b, _ := write(t, cfg)
	if !bytes.Equal(a, b) {
		t.Fatal("the same seed gave two histories")
	}
	cfg.Seed++
	if c, _ := write(t, cfg); bytes.Equal(a, c) {
		t.Fatal("another seed gave the same history")
	}
	n := 0
	err := histories.NewReader(bytes.NewReader(a), "h").Scan(func(*histories.Op) error {
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if int64(n) != planted.Ops || n < cfg.Ops {
		t.Fatalf("read %d ops, wrote %d, asked %d", n, planted.Ops, cfg.Ops)
	}
}

func TestWriteRefusesTooFewProcesses(t *testing.T) {
	if _, err := histgen.Write(&bytes.Buffer{}, histgen.Config{Ops: 10, Keys: 1, Processes: 2}); err == nil {
		t.Fatal("2 processes accepted")
	}
}
