// Package browsertest opens the report's pages in headless Chromium
// (Debian's `chromium` package), for the browser tests of package report
// (report.html) and package runs (history.html): they check what only a
// browser can, that the page script runs without errors under the page's
// CSP, draws the page, answers clicks, and that every thumbnail decodes.
// Open skips the test when no Chromium is installed, except under CI=true,
// where a missing browser is a failure; GWCONFORM_CHROMIUM names another
// binary.
package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// findChromium returns the browser binary, or "" when none is installed.
func findChromium() string {
	if p := os.Getenv("GWCONFORM_CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// RepoRoot returns the module's root: the browser tests write out/ there.
func RepoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, parent, dir, "go.mod not found")
		dir = parent
	}
}

// Browser is a headless Chromium that collects console errors, uncaught
// exceptions and browser log entries (CSP violations and failed loads land
// there) from before the first page loads.
type Browser struct {
	t        *testing.T
	Ctx      context.Context // for chromedp.Run with actions of a result
	mu       sync.Mutex
	problems []string
	// ended is why the console listener stopped before ConsoleProblems
	// stopped it (the browser went away): its problems are then partial.
	ended error
	stop  context.CancelFunc
	wg    sync.WaitGroup
}

// Open starts Chromium for the test; it skips the test when none is
// installed, except under CI=true, where a missing browser is a failure.
func Open(t *testing.T) *Browser {
	t.Helper()
	bin := findChromium()
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium found (/usr/bin/chromium); CI must install Debian's chromium package")
		}
		t.Skip("no Chromium found: install Debian's chromium package (apt-get install -y chromium) to run the browser test")
	}
	profile, err := os.MkdirTemp("", "gwconform-chromium-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(profile) })

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1440, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(cancelCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelTimeout)

	b := &Browser{t: t, Ctx: ctx}
	cctx, stop := context.WithCancel(ctx)
	b.stop = stop
	msgs := chromedp.Console(cctx)
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for m, err := range msgs {
			if err != nil {
				b.mu.Lock()
				b.ended = err
				b.mu.Unlock()
				return
			}
			switch m.Type {
			case chromedp.ConsoleError, chromedp.ConsoleException:
				b.mu.Lock()
				b.problems = append(b.problems, fmt.Sprintf("%s [%s] %s:%d", m, m.Source, m.URL, m.Line))
				b.mu.Unlock()
			case chromedp.ConsoleWarning:
				t.Logf("browser warning: %s", m)
			}
		}
	}()
	t.Cleanup(func() { stop(); b.wg.Wait() })
	return b
}

// Run runs an action on the page; an error fails the test.
func (b *Browser) Run(a chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	require.NoError(b.t, chromedp.Do(b.Ctx, a))
}

// Eval evaluates js on the page, to a number.
func (b *Browser) Eval(js string) int {
	b.t.Helper()
	n, err := chromedp.Run(b.Ctx, chromedp.Evaluate[int](js))
	require.NoError(b.t, err, js)
	return n
}

// EvalString evaluates js on the page, to a string.
func (b *Browser) EvalString(js string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.Ctx, chromedp.Evaluate[string](js))
	require.NoError(b.t, err, js)
	return s
}

// Text returns the text of the element css selects.
func (b *Browser) Text(css string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.Ctx, chromedp.Text(chromedp.CSS(css)))
	require.NoError(b.t, err, css)
	return s
}

// ConsoleProblems stops listening and returns what the page logged as an
// error. A probe logged first proves the listener works (an empty list must
// mean "no errors", not "not listening"); what the page logs around it,
// before or after, is returned, the probe left out.
func (b *Browser) ConsoleProblems() []string {
	b.t.Helper()
	const probe = "gwconform-probe"
	b.Eval(`console.error('` + probe + `'); 1`)
	require.Eventually(b.t, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.ended != nil || slices.ContainsFunc(b.problems, func(p string) bool { return strings.Contains(p, probe) })
	}, time.Minute, 20*time.Millisecond, "console listener saw the probe")
	b.mu.Lock()
	ended := b.ended
	b.mu.Unlock()
	require.NoError(b.t, ended, "the console listener ended before the probe (did the browser exit?)")
	b.stop()
	b.wg.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(b.problems), func(p string) bool { return strings.Contains(p, probe) })
}

// WritePage writes a page into a temporary directory and returns its path.
func WritePage(t *testing.T, name string, write func(io.Writer) error) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, write(&buf))
	page := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(page, buf.Bytes(), 0o644))
	return page
}
