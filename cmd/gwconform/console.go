package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/execute"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/report"
	"github.com/gwconform/gwconform/report/markdown"
)

// console shows a run's progress. On a terminal: a one-line bar, with each
// failure printed in full above it. Elsewhere (a CI log): one line per
// result that decides the verdict and did not pass, and a progress line now
// and then; verbose prints every result with all its reasons. Every run
// ends with the failures grouped by cause (recap).
type console struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	color    bool
	strict   bool // strict-tier results decide the verdict
	verbose  bool
	total    int
	done     int
	failed   int // failures that decide the verdict
	started  time.Time
	lastLine time.Time     // when a log line last said how far the run is
	stop     chan struct{} // ends the ticker
	// waiting names the keys and families that wait on the gateway's rate
	// limit now (nil: none can).
	waiting func() []string
	// inFlight names the calls in flight for longer than longFlight, with
	// their phase (nil: none can).
	inFlight func() []string
}

// longFlight is how long a call may be in flight before the progress line
// names it: a stall shows within a minute, not after the run.
const longFlight = 30 * time.Second

// progressEvery spaces the progress lines a log (not a terminal) gets.
const progressEvery = 30 * time.Second

func newConsole(w io.Writer, total int, strict, verbose bool, runner *execute.Runner) *console {
	tty := false
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	_, noColor := os.LookupEnv("NO_COLOR")
	c := &console{w: w, tty: tty, color: tty && !noColor, strict: strict, verbose: verbose, total: total,
		started: time.Now(), lastLine: time.Now(), stop: make(chan struct{})}
	if runner != nil {
		c.waiting = runner.Waiting
		c.inFlight = func() []string { return runner.InFlight(longFlight) }
	}
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
			} else if time.Since(c.lastLine) >= progressEvery {
				c.lastLine = time.Now()
				line := fmt.Sprintf("... %d/%d done, %d failing, %s", c.done, c.total, c.failed, time.Since(c.started).Round(time.Second))
				if w := c.waits(); w != "" {
					line += "; " + w
				}
				fmt.Fprintln(c.w, line)
				if c.inFlight != nil {
					if long := c.inFlight(); len(long) > 0 {
						fmt.Fprintf(c.w, "    in flight for more than %s: %s\n", longFlight, markdown.NameSome(long, recapCases))
					}
				}
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

var statusColor = map[vocab.Status]string{
	vocab.StatusPass: "32", vocab.StatusFail: "31", vocab.StatusError: "35",
	vocab.StatusSkip: "90", vocab.StatusUnsupported: "33", vocab.StatusThrottled: "33",
	vocab.StatusInconclusive: "33", vocab.StatusWaived: "36",
}

// outcomeColor paints the verdict line like the status it resembles.
var outcomeColor = map[results.Outcome]vocab.Status{
	results.OutcomePass: vocab.StatusPass, results.OutcomeFail: vocab.StatusFail,
	results.OutcomeIncomplete: vocab.StatusThrottled, results.OutcomeNoVerdict: vocab.StatusUnsupported,
}

func (c *console) paint(st vocab.Status, s string) string {
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
	deciding := r.Failed() && r.Decides(c.strict) && !r.Cancelled
	if deciding {
		c.failed++
	}
	if c.tty {
		fmt.Fprint(c.w, "\r\x1b[2K") // clear the bar before printing above it
	}
	switch {
	case c.verbose || (c.tty && r.Failed()):
		c.full(r)
	case deciding:
		c.line(r)
	}
	if c.tty {
		c.bar()
	}
}

// line prints a result on one line: status, case × model, tier, its first
// reason and how many more, and the gateway's request id: a CI log is where
// an operator looks for it.
func (c *console) line(r results.Result) {
	first := r.FirstReason()
	if first != "" {
		first = ": " + first
	}
	if r.RequestID != "" {
		first += " [request id " + r.RequestID + "]"
	}
	fmt.Fprintf(c.w, "%s %s × %s (%s)%s\n", c.paint(r.Status, fmt.Sprintf("%-12s", strings.ToUpper(string(r.Status)))), r.Case, r.Model, r.Tier, first)
}

// full prints a result with every reason.
func (c *console) full(r results.Result) {
	waited := ""
	if r.Waits > 0 {
		waited = fmt.Sprintf(", waited %d× %s on the rate limit", r.Waits, (time.Duration(r.WaitMS) * time.Millisecond).Round(100*time.Millisecond))
	}
	fmt.Fprintf(c.w, "%s %-30s %-24s %s (%s, %dms%s)\n", c.paint(r.Status, fmt.Sprintf("%-12s", strings.ToUpper(string(r.Status)))),
		r.Feature, r.Model, r.Case, r.Tier, r.DurationMS, waited)
	if r.Status != vocab.StatusPass && r.Status != vocab.StatusSkip {
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
	if c.inFlight != nil {
		if long := c.inFlight(); len(long) > 0 {
			fmt.Fprintf(c.w, "  longest in flight: %s", long[0])
		}
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
	counts := map[vocab.Tier]map[vocab.Status]int{}
	for _, r := range rs {
		if counts[r.Tier] == nil {
			counts[r.Tier] = map[vocab.Status]int{}
		}
		counts[r.Tier][r.Status]++
	}
	fmt.Fprintf(c.w, "\n%-10s", "tier")
	for _, s := range vocab.Statuses {
		fmt.Fprintf(c.w, " %12s", s)
	}
	fmt.Fprintln(c.w)
	for _, t := range vocab.Tiers {
		fmt.Fprintf(c.w, "%-10s", t)
		for _, s := range vocab.Statuses {
			fmt.Fprintf(c.w, " %12d", counts[t][s])
		}
		fmt.Fprintln(c.w)
	}
	took := time.Since(c.started).Round(time.Millisecond)
	if kept := len(rs) - c.done; kept > 0 { // --rerun-failed, --resume: the time is this session's
		fmt.Fprintf(c.w, "%d results: %d made now, in %s; %d kept from the run before\n", len(rs), c.done, took, kept)
	} else {
		fmt.Fprintf(c.w, "%d results in %s\n", len(rs), took)
	}
	c.recap(rs)
	fmt.Fprintf(c.w, "\n%s\n", c.paint(outcomeColor[v.Outcome], strings.ToUpper(string(v.Outcome))+": "+v.Headline))
	for _, n := range v.Notes {
		fmt.Fprintf(c.w, "  - %s\n", n)
	}
}

// causeGroups groups the failed results by cause in the reports' order,
// not as they finished: each cause's example (its first result) is then
// the one report.json, matrix.md and report.html show.
func causeGroups(rs []results.Result, strict bool) []results.CauseGroup {
	ordered := slices.Clone(rs)
	report.SortResults(ordered, catalog.Features)
	return results.GroupByCause(ordered, strict)
}

// recapCases is how many case ids a recap group names before "and N more".
const recapCases = 5

// recap prints the failures grouped by cause, those deciding the verdict
// first: how many results and cells each covers, its first cases, and one
// example with expected and actual. Cancelled calls are noted, not listed.
func (c *console) recap(rs []results.Result) {
	groups := causeGroups(rs, c.strict)
	cancelled := 0
	for _, r := range rs {
		if r.Cancelled {
			cancelled++
		}
	}
	if len(groups) == 0 && cancelled == 0 {
		return
	}
	fmt.Fprintln(c.w, "\nFAILURES by cause")
	heading := ""
	for i, g := range groups {
		h := "reported only (strict, explore: not the verdict)"
		if g.Deciding {
			h = "decide the verdict"
		}
		if h != heading {
			heading = h
			fmt.Fprintf(c.w, "\n%s:\n", h)
		}
		fmt.Fprintf(c.w, "%2d. %s\n", i+1, g.Cause)
		fmt.Fprintf(c.w, "    %d results in %d cells (model × feature): %s\n", g.Results, g.Cells, markdown.NameSome(g.Cases, recapCases))
		fmt.Fprintf(c.w, "    e.g. %s × %s: %s\n", g.Example.Case, g.Example.Model, g.Reason)
		if g.Example.RequestID != "" {
			fmt.Fprintf(c.w, "    request id: %s\n", g.Example.RequestID)
		}
	}
	if cancelled > 0 {
		fmt.Fprintf(c.w, "\nnot failures: %d %s cut short by the interrupt (run --resume makes them again)\n", cancelled, markdown.Plural(cancelled, "call", "calls"))
	}
}
