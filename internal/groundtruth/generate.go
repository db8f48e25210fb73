package groundtruth

import (
	"io"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Generate writes a correct history of about nOps ops for seed, with
// DefaultConfig, to w as JSONL through histories.Writer, flushing at the end
// (and closing w when it is an io.Closer). Memory does not grow with the
// history, only with the logs it simulates.
func Generate(seed int64, nOps int, w io.Writer) error {
	hw := histories.NewWriter(w)
	err := GenerateTo(seed, nOps, DefaultConfig(), hw.Append)
	if cerr := hw.Close(); err == nil {
		err = cerr
	}
	return err
}
