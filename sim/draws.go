package sim

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// Drawn is one draw of Draws: its scenario, what it recorded, its
// verdict, and its wall time; Err is a harness failure (no verdict).
type Drawn struct {
	I        int
	Scenario generators.Scenario
	Played   Played
	Verdict  Verdict
	Wall     time.Duration
	Err      error
}

// Draws plays and judges draws 0..n-1 (scenario(i) each) in child
// processes of bin (a Player's), parallel at a time, under dir, calling
// each with every draw as it ends (from several goroutines: each must be
// safe for that). A draw's directory is removed unless it failed. It
// returns the error of ending the children.
func Draws(ctx context.Context, bin, dir string, n, parallel int, scenario func(int) generators.Scenario, each func(Drawn)) error {
	pl := NewPlayer(bin)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range max(1, parallel) {
		wg.Go(func() {
			for i := range jobs {
				each(draw(ctx, pl, filepath.Join(dir, strconv.Itoa(i)), i, scenario(i)))
			}
		})
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return pl.Close()
}

func draw(ctx context.Context, pl *Player, dir string, i int, s generators.Scenario) Drawn {
	began := time.Now()
	d := Drawn{I: i, Scenario: s}
	d.Played, d.Err = pl.Play(ctx, dir, s)
	if d.Err == nil {
		d.Verdict, d.Err = Check(s, d.Played)
	}
	d.Wall = time.Since(began)
	if d.Err == nil {
		removeAll(dir)
	}
	return d
}

// Want is what a test asks of draw d: a planted draw (Planted) must be
// refuted as exactly-once, any other must hold its model's guarantee. It
// returns d.Err (matching Stalled for a stalled draw) when the draw has no
// verdict, and an error saying what failed otherwise.
func (d Drawn) Want(planted bool) error {
	v := d.Verdict
	switch {
	case d.Err != nil:
		return fmt.Errorf("draw %d (seed %d): %w", d.I, d.Scenario.Seed, d.Err)
	case planted && model.Satisfies(v.Observed.EndToEnd, model.ExactlyOnce):
		return fmt.Errorf("draw %d (planted, seed %d): not refuted: %v", d.I, d.Scenario.Seed, v.Result.Counts)
	case !planted && !v.Held:
		return fmt.Errorf("draw %d (seed %d): expected %s, observed %s: %v", d.I, d.Scenario.Seed,
			v.Expected.EndToEnd, v.Observed.EndToEnd, v.Result.Counts)
	}
	return nil
}
