package checkers

import (
	"errors"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/groundtruth"
)

// The per-key passes in parallel give exactly the serial run's result, on
// simulated histories with an injected anomaly of every kind (or none).
func TestPropertyParallelKeysAgreeWithSerial(t *testing.T) {
	cfg := groundtruth.DefaultConfig()
	cfg.Keys = 6
	kinds := append([]groundtruth.Kind{""}, groundtruth.Kinds()...)
	rapid.Check(t, func(t *rapid.T) {
		ops := groundtruth.Gen(cfg, 50, 400).Draw(t, "history")
		opts := Options{}
		if kind := rapid.SampledFrom(kinds).Draw(t, "kind"); kind != "" {
			inj, err := groundtruth.Inject(ops, kind, groundtruth.RapidChooser(t))
			if errors.Is(err, groundtruth.ErrNotApplicable) {
				t.Skip("nothing to inject into")
			}
			if err != nil {
				t.Fatal(err)
			}
			ops, opts.WWDeps = inj.Ops, inj.WWDeps
		}
		opts.workers = 1
		serial := mustCheck(t, ops, opts)
		opts.workers = 4
		if parallel := mustCheck(t, ops, opts); !reflect.DeepEqual(parallel, serial) {
			t.Fatalf("parallel run differs:\n%+v\nserial:\n%+v", parallel, serial)
		}
	})
}

func mustCheck(t *rapid.T, ops []histories.Op, opts Options) Result {
	res, err := Check(Ops(ops), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
