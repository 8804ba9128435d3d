package execute

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"

	"golang.org/x/net/http/httpproxy"
)

// SpecMaxDuration is what the spec allows a verified client to wait for one
// request (section 8). Only a request running past it is a verdict on the
// gateway; a shorter limit is the user's choice, and hitting it an error.
const SpecMaxDuration = 600 * time.Second

// MaxResponseHeaderBytes caps a response's header block. A gateway's headers
// are a few kilobytes; the cap ends an endless header as an error of its
// own, after reading one mebibyte, long before any time limit could (Go's
// default is ten).
const MaxResponseHeaderBytes = 1 << 20

// TLSOptions say how to trust the gateway.
type TLSOptions struct {
	// CACertFile adds a private CA (PEM) to the system's roots.
	CACertFile string
	// Insecure skips certificate verification: an explicit opt-in that every
	// report flags.
	Insecure bool
}

// NewClient returns the HTTP client of a run: its own transport (so a
// private CA or --insecure touches nothing else), which still honours
// HTTPS_PROXY, HTTP_PROXY and NO_PROXY like the default one. Timeouts are
// not set here: Options bound each phase of each request.
func NewClient(o TLSOptions) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxResponseHeaderBytes = MaxResponseHeaderBytes
	// The proxy variables are read now, for this client: the standard
	// http.ProxyFromEnvironment reads them once per process, so a second
	// client (a test, a later run in the same process) could not change them.
	proxy := httpproxy.FromEnvironment().ProxyFunc()
	tr.Proxy = func(r *http.Request) (*url.URL, error) { return proxy(r.URL) }
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.CACertFile != "" {
		pem, err := os.ReadFile(o.CACertFile)
		if err != nil {
			return nil, fmt.Errorf("--ca-cert: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--ca-cert %s: no PEM certificate in it", o.CACertFile)
		}
		cfg.RootCAs = pool
	}
	cfg.InsecureSkipVerify = o.Insecure //nolint:gosec // an explicit, reported opt-in
	tr.TLSClientConfig = cfg
	return &http.Client{Transport: tr}, nil
}

// phase names the part of a request a stall limit applies to.
type phase string

const (
	phaseConnect phase = "connect"    // until the connection is up
	phaseHeader  phase = "first byte" // until the first response byte
	phaseBody    phase = "body"       // between two body bytes
)

// StallError says a phase of a request passed its limit: an error of the
// run (the user chose the limit), never a verdict on the gateway.
type StallError struct {
	Phase phase
	Limit time.Duration
	Flag  string
}

func (e *StallError) Error() string {
	what := map[phase]string{
		phaseConnect: "no connection",
		phaseHeader:  "no response byte",
		phaseBody:    "no body byte",
	}[e.Phase]
	return fmt.Sprintf("stalled in the %s phase: %s for %s (%s)", e.Phase, what, e.Limit, e.Flag)
}

// watchdog enforces the per-phase limits of one attempt: it cancels the
// attempt's context with a StallError when a phase runs past its limit,
// and moves through connect → first byte → body as the trace reports.
type watchdog struct {
	mu     sync.Mutex
	limits map[phase]time.Duration
	timer  *time.Timer
	phase  phase
	cancel context.CancelCauseFunc
	err    *StallError
}

func newWatchdog(ctx context.Context, o Options) (context.Context, *watchdog) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watchdog{cancel: cancel, limits: map[phase]time.Duration{
		phaseConnect: o.ConnectTimeout, phaseHeader: o.HeaderTimeout, phaseBody: o.IdleTimeout,
	}}
	w.enter(phaseConnect)
	return ctx, w
}

// enter starts a phase's clock (and, within the body, restarts it).
func (w *watchdog) enter(p phase) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	w.phase = p
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if limit := w.limits[p]; limit > 0 {
		w.timer = time.AfterFunc(limit, func() { w.fire(p, limit) })
	}
}

func (w *watchdog) fire(p phase, limit time.Duration) {
	w.mu.Lock()
	if w.phase != p || w.err != nil {
		w.mu.Unlock()
		return
	}
	flag := map[phase]string{phaseConnect: "--connect-timeout", phaseHeader: "--header-timeout", phaseBody: "--idle-timeout"}[p]
	w.err = &StallError{Phase: p, Limit: limit, Flag: flag}
	err := w.err
	w.mu.Unlock()
	w.cancel(err)
}

// stalled returns the stall, if one ended the attempt.
func (w *watchdog) stalled() *StallError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// stop ends the watch (the body is closed or the attempt is over).
func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
	w.cancel(nil)
}

// watchedBody restarts the body clock on every byte and names the stall
// when a read fails because of it.
type watchedBody struct {
	rc io.ReadCloser
	w  *watchdog
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.w.enter(phaseBody)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		if s := b.w.stalled(); s != nil {
			err = s
		}
	}
	return n, err
}

func (b *watchedBody) Close() error {
	b.w.stop()
	return b.rc.Close()
}
