package sim

import (
	"os"
	"strconv"
	"testing"

	"github.com/kafkachaos/kafkachaos/generators"
)

func TestZZSave(t *testing.T) {
	seed, err := strconv.Atoi(os.Getenv("ZZ_SEED"))
	if err != nil {
		t.Skip()
	}
	sp := Space()
	sp.MaxCopiers = 1
	os.MkdirAll(os.Getenv("ZZ_DIR"), 0o755)
	if err := generators.Save(os.Getenv("ZZ_DIR"), generators.RandomIn(sp, int64(seed))); err != nil {
		t.Fatal(err)
	}
}
