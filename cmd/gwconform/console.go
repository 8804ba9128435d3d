package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/gwconform/gwconform/conformance/results"
)

// console shows a run's progress: a one-line bar on a terminal, otherwise a
// line per finished case (CI logs). Failures are always printed in full.
type console struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	color   bool
	total   int
	done    int
	failed  int
	started time.Time
	stop    chan struct{} // ends the ticker
	// waiting names the keys and families that wait on the gateway's rate
	// limit now (nil: none can).
	waiting   func() []string
	lastWaits time.Time // when a log line last said so
}

// waitLogEvery spaces the lines a log (not a terminal) gets while the run
// waits on the rate limit.
const waitLogEvery = 10 * time.Second

func newConsole(w io.Writer, total int, waiting func() []string) *console {
	tty := false
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	_, noColor := os.LookupEnv("NO_COLOR")
	c := &console{w: w, tty: tty, color: tty && !noColor, total: total, started: time.Now(), stop: make(chan struct{}), waiting: waiting}
	// Image calls can take minutes, and a rate limit can hold the run
	// longer: keep the elapsed time moving, and say what the run waits on.
	go c.tick()
	return c
}

func (c *console) tick() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			c.mu.Lock()
			if c.tty {
				fmt.Fprint(c.w, "\r\x1b[2K")
				c.bar()
			} else if w := c.waits(); w != "" && time.Since(c.lastWaits) >= waitLogEvery {
				c.lastWaits = time.Now()
				fmt.Fprintf(c.w, "... %d/%d done, %s; %s\n", c.done, c.total, time.Since(c.started).Round(time.Second), w)
			}
			c.mu.Unlock()
		}
	}
}

// waits says what the run waits on now: the first key and family waiting
// on the rate limit, and how many more; "" when none.
func (c *console) waits() string {
	if c.waiting == nil {
		return ""
	}
	w := c.waiting()
	switch len(w) {
	case 0:
		return ""
	case 1:
		return "waiting on the rate limit: " + w[0]
	}
	return fmt.Sprintf("waiting on the rate limit: %s (and %d more)", w[0], len(w)-1)
}

var statusColor = map[results.Status]string{
	results.StatusPass: "32", results.StatusFail: "31", results.StatusError: "35",
	results.StatusSkip: "90", results.StatusUnsupported: "33", results.StatusThrottled: "33",
	results.StatusInconclusive: "33", results.StatusWaived: "36",
}

// outcomeColor paints the verdict line like the status it resembles.
var outcomeColor = map[results.Outcome]results.Status{
	results.OutcomePass: results.StatusPass, results.OutcomeFail: results.StatusFail,
	results.OutcomeIncomplete: results.StatusThrottled, results.OutcomeNoVerdict: results.StatusUnsupported,
}

func (c *console) paint(st results.Status, s string) string {
	if !c.color {
		return s
	}
	return "\x1b[" + statusColor[st] + "m" + s + "\x1b[0m"
}

// add records one finished result.
func (c *console) add(r results.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done++
	if r.Failed() {
		c.failed++
	}
	show := !c.tty || r.Failed()
	if c.tty {
		fmt.Fprint(c.w, "\r\x1b[2K") // clear the bar before printing above it
	}
	if show {
		waited := ""
		if r.Waits > 0 {
			waited = fmt.Sprintf(", waited %d× %s on the rate limit", r.Waits, (time.Duration(r.WaitMS) * time.Millisecond).Round(100*time.Millisecond))
		}
		fmt.Fprintf(c.w, "%s %-30s %-24s %s (%s, %dms%s)\n", c.paint(r.Status, fmt.Sprintf("%-12s", strings.ToUpper(string(r.Status)))),
			r.Feature, r.Model, r.Case, r.Tier, r.DurationMS, waited)
		if r.Status != results.StatusPass && r.Status != results.StatusSkip {
			for _, reason := range r.Reasons {
				fmt.Fprintf(c.w, "    %s\n", reason)
			}
			if r.RequestID != "" {
				fmt.Fprintf(c.w, "    request id: %s\n", r.RequestID)
			}
		}
		if w := r.Waiver; w != nil {
			fmt.Fprintf(c.w, "    waiver %s %s: %s\n", w.Source, w.State, w.Describe())
		}
	}
	if c.tty {
		c.bar()
	}
}

func (c *console) bar() {
	const width = 30
	filled := 0
	if c.total > 0 {
		filled = width * c.done / c.total
	}
	fmt.Fprintf(c.w, "[%s%s] %d/%d  failures %d  %s", strings.Repeat("=", filled), strings.Repeat(" ", width-filled),
		c.done, c.total, c.failed, time.Since(c.started).Round(time.Second))
	if w := c.waits(); w != "" {
		fmt.Fprint(c.w, "  "+w)
	}
}

// summary prints a table of statuses per tier.
func (c *console) summary(rs []results.Result, v results.Verdict) {
	close(c.stop)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tty {
		fmt.Fprint(c.w, "\r\x1b[2K")
	}
	counts := map[results.Tier]map[results.Status]int{}
	for _, r := range rs {
		if counts[r.Tier] == nil {
			counts[r.Tier] = map[results.Status]int{}
		}
		counts[r.Tier][r.Status]++
	}
	fmt.Fprintf(c.w, "\n%-10s", "tier")
	for _, s := range results.Statuses {
		fmt.Fprintf(c.w, " %12s", s)
	}
	fmt.Fprintln(c.w)
	for _, t := range results.Tiers {
		fmt.Fprintf(c.w, "%-10s", t)
		for _, s := range results.Statuses {
			fmt.Fprintf(c.w, " %12d", counts[t][s])
		}
		fmt.Fprintln(c.w)
	}
	fmt.Fprintf(c.w, "%d results in %s\n", len(rs), time.Since(c.started).Round(time.Millisecond))
	fmt.Fprintf(c.w, "\n%s\n", c.paint(outcomeColor[v.Outcome], strings.ToUpper(string(v.Outcome))+": "+v.Headline))
	for _, n := range v.Notes {
		fmt.Fprintf(c.w, "  - %s\n", n)
	}
}
