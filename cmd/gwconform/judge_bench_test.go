//go:build linux

package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/check"
	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/observe"
	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/fixtures"
)

// The benchmarks of serve --upstream URL --judge: what the judging relay
// costs a client's streams, and how fast its judge keeps up. They report
// figures and assert no wall-clock bound (make bench runs them).

// benchLatency is the latency profile of make bench's paced runs
// (conformance/bench_test.go, BenchmarkPacedRun).
const benchLatency = "chat=300ms,messages=300ms,images.generations=1s,images.edits=1s,event=10ms"

// benchStream is one kind of streamed request.
type benchStream struct {
	name, path, key, body string
}

func benchStreams(keys refgateway.Keys) []benchStream {
	return []benchStream{
		{"chat", "/v1/chat/completions", keys.Text,
			`{"model":"gen-5.5","stream":true,"max_tokens":256,"messages":[{"role":"user","content":"Say something about rivers."}]}`},
		{"messages", "/v1/messages", keys.Messages,
			`{"model":"msg-sonnet-5","stream":true,"max_tokens":256,"messages":[{"role":"user","content":"Say something about rivers."}]}`},
		{"image", "/v1/images/generations", keys.Image,
			`{"model":"gen-image-2.5-flare","prompt":"a lighthouse on a cliff","stream":true,"partial_images":2}`},
	}
}

// streamTiming is what a client saw of one stream, from sending its
// request: the first body byte, the end of the last event (its blank
// line), and the end of the body (EOF).
type streamTiming struct {
	ttfb, last, end time.Duration
	events, bytes   int
}

// timeStream sends one streamed request and reads its body as it arrives.
func timeStream(tb testing.TB, client *http.Client, base string, s benchStream) streamTiming {
	tb.Helper()
	req, err := http.NewRequest(http.MethodPost, base+s.path, strings.NewReader(s.body))
	require.NoError(tb, err)
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	var t streamTiming
	start := time.Now()
	resp, err := client.Do(req)
	require.NoError(tb, err)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		tb.Fatalf("%s %s: %s: %s", s.name, base, resp.Status, b)
	}
	buf := make([]byte, 64<<10)
	var prev byte
	for {
		n, err := resp.Body.Read(buf)
		now := time.Since(start)
		if n > 0 && t.ttfb == 0 {
			t.ttfb = now
		}
		for _, c := range buf[:n] {
			if c == '\r' {
				continue // CRLF ends a line as LF does
			}
			if c == '\n' && prev == '\n' {
				t.events++
				t.last = now
			}
			prev = c
		}
		t.bytes += n
		if err == io.EOF {
			t.end = now
			break
		}
		require.NoError(tb, err, "%s %s", s.name, base)
	}
	require.NotZero(tb, t.events, "%s %s: no event", s.name, base)
	return t
}

// startJudgingRelay starts serve --upstream URL --judge --out DIR in
// process, as the command line does, and returns its base URL and a stop
// that ends it and waits for the judge to finish (the verdict of the
// judged traffic is not a benchmark's).
func startJudgingRelay(tb testing.TB, upstream, out string) (base string, stop func()) {
	tb.Helper()
	base, stopCode, _ := startServeCode(tb, "--upstream", upstream, "--judge", "--out", out)
	return base, func() { stopCode() }
}

// BenchmarkJudgingRelayLatency measures what a judging relay (serve
// --upstream URL --judge) adds to a client's streams: against the
// reference gateway with make bench's latency profile, each iteration
// sends a chat, a messages and an image stream (partial_images 2) direct
// and through the relay, in alternating order, and reports relay/direct
// of the summed times to the first body byte (ttfb-ratio), to the end of
// the last event (last-event-ratio) and to the end of the body
// (end-ratio). The goal for streams is a ratio of at most 1.05; it is
// reported, not asserted.
func BenchmarkJudgingRelayLatency(b *testing.B) {
	latency, err := refgateway.ParseLatency(benchLatency)
	require.NoError(b, err)
	gw, err := conformancetest.Start(refgateway.Config{Latency: latency}, fixtures.FS)
	require.NoError(b, err)
	b.Cleanup(gw.Close)
	relay, _ := startJudgingRelay(b, gw.BaseURL, filepath.Join(b.TempDir(), "out"))
	// One client for both, as an SDK would have: kept-alive connections,
	// and no compression asked for (the relay asks for none either).
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}}
	b.Cleanup(client.CloseIdleConnections)

	for _, s := range benchStreams(gw.Keys) {
		b.Run(s.name, func(b *testing.B) {
			// Warm up: connections opened, the gateway's picture cache
			// filled, the relay's recording file created.
			timeStream(b, client, gw.BaseURL, s)
			timeStream(b, client, relay, s)
			var direct, relayed streamTiming
			add := func(sum *streamTiming, t streamTiming) {
				sum.ttfb += t.ttfb
				sum.last += t.last
				sum.end += t.end
				sum.events += t.events
				sum.bytes += t.bytes
			}
			i := 0
			for b.Loop() {
				if i%2 == 0 {
					add(&direct, timeStream(b, client, gw.BaseURL, s))
					add(&relayed, timeStream(b, client, relay, s))
				} else {
					add(&relayed, timeStream(b, client, relay, s))
					add(&direct, timeStream(b, client, gw.BaseURL, s))
				}
				i++
			}
			if direct.events != relayed.events || direct.bytes != relayed.bytes {
				b.Logf("%s: direct %d events, %d bytes; relayed %d events, %d bytes", s.name, direct.events, direct.bytes, relayed.events, relayed.bytes)
			}
			n := float64(i)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / n }
			b.ReportMetric(benchRatio(relayed.ttfb, direct.ttfb), "ttfb-ratio")
			b.ReportMetric(benchRatio(relayed.last, direct.last), "last-event-ratio")
			b.ReportMetric(benchRatio(relayed.end, direct.end), "end-ratio")
			b.ReportMetric(ms(direct.ttfb), "direct-ttfb-ms")
			b.ReportMetric(ms(direct.last), "direct-last-event-ms")
			b.ReportMetric(ms(relayed.end-relayed.last), "relay-last-to-end-ms")
			b.ReportMetric(float64(direct.events)/n, "events/stream")
			b.ReportMetric(peakRSSKiB(b), "peak-RSS-KiB")
		})
	}
}

func benchRatio(relayed, direct time.Duration) float64 {
	if direct <= 0 {
		return 0
	}
	return float64(relayed) / float64(direct)
}

// BenchmarkJudgeThroughput measures the judge of serve --judge alone:
// exchanges judged per second by observe.Judge.Round, for chat answers
// (JSON), image answers (JSON, b64_json) and image streams (partial_images
// 2), from rounds a relay recorded, read back as judge RECORDING reads
// them; and the process's peak RSS.
func BenchmarkJudgeThroughput(b *testing.B) {
	gw, err := conformancetest.Start(refgateway.Config{}, fixtures.FS)
	require.NoError(b, err)
	b.Cleanup(gw.Close)
	keys := gw.Keys
	rec := filepath.Join(b.TempDir(), "recording")
	si := &standIn{upstream: gw.BaseURL, record: rec, keys: map[string]string{
		refgateway.KindText: keys.Text, refgateway.KindMessages: keys.Messages, refgateway.KindImage: keys.Image, refgateway.KindAlt: keys.Alt}}
	handler, _, err := si.relay()
	require.NoError(b, err)
	relay := httptest.NewServer(handler)
	b.Cleanup(relay.Close)

	const each = 4 // distinct exchanges of each kind
	type exchange struct{ kind, path, key, body string }
	var sent []exchange
	subjects := []string{"rivers", "lighthouses", "glaciers", "deserts"}
	// Prompts whose streams carry both previews partial_images asks for
	// (the gateway sends fewer on about one request in four).
	streamed := []string{"a lighthouse", "a fox", "lighthouses at dawn", "glaciers at dawn"}
	for i := range each {
		sent = append(sent,
			exchange{"chat-json", "/v1/chat/completions", keys.Text,
				fmt.Sprintf(`{"model":"gen-5.5","max_tokens":256,"messages":[{"role":"user","content":"Say something about %s."}]}`, subjects[i])},
			exchange{"image-json", "/v1/images/generations", keys.Image,
				fmt.Sprintf(`{"model":"gen-image-2.5-flare","prompt":"%s at dusk"}`, subjects[i])},
			exchange{"image-stream", "/v1/images/generations", keys.Image,
				fmt.Sprintf(`{"model":"gen-image-2.5-flare","prompt":"%s","stream":true,"partial_images":2}`, streamed[i])})
	}
	for _, e := range sent {
		req, err := http.NewRequest(http.MethodPost, relay.URL+e.path, strings.NewReader(e.body))
		require.NoError(b, err)
		req.Header.Set("Authorization", "Bearer "+e.key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(b, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(b, err)
		require.Equal(b, http.StatusOK, resp.StatusCode, "%s: %s", e.kind, body)
	}
	relay.Close()
	si.wait() // every exchange recorded

	store, _, err := record.Open(rec)
	require.NoError(b, err)
	rounds, err := store.Sent()
	require.NoError(b, err)
	require.Equal(b, len(sent), rounds.Len(), "the relay records every exchange")
	byKind := map[string][]benchRound{}
	var all []benchRound
	for k, err := range rounds.All() {
		require.NoError(b, err)
		r := benchRound{round: k.Round, file: filepath.Join(store.Dir(), k.File), store: store}
		all = append(all, r)
		kind := "chat-json"
		switch {
		case r.round.Request.Path != "/v1/chat/completions" && r.round.Response != nil && r.round.Response.Events != nil:
			kind = "image-stream"
		case r.round.Request.Path != "/v1/chat/completions":
			kind = "image-json"
		}
		byKind[kind] = append(byKind[kind], r)
	}

	suite, err := conformance.LoadSuite("")
	require.NoError(b, err)
	judge := observe.New(suite.Catalog, suite.Schemas, check.Limits{MaxBodyBytes: 256 << 20}, observe.Options{})
	for _, kind := range []string{"chat-json", "image-json", "image-stream"} {
		b.Run(kind, func(b *testing.B) {
			rs := byKind[kind]
			require.Len(b, rs, each)
			// The judge must judge, not stop at an unreadable recording:
			// both sides come back, and neither is an error.
			for _, r := range rs {
				got := judge.Round(r.round, r.file, r.store)
				require.Len(b, got, 2, "%s: the client's result and the gateway's", kind)
				for _, res := range got {
					require.NotEqual(b, vocab.StatusError, res.Status, "%s %s: %v", kind, res.Side, judgeBenchReasons(res))
				}
			}
			judged := 0
			for b.Loop() {
				for _, r := range rs {
					judge.Round(r.round, r.file, r.store)
					judged++
				}
			}
			b.ReportMetric(float64(judged)/b.Elapsed().Seconds(), "exchanges/s")
			b.ReportMetric(peakRSSKiB(b), "peak-RSS-KiB")
		})
	}
	// The pipeline of a judging session, with one worker and with one per
	// core: the same rounds, judged and settled in the order they came.
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("pipeline-workers-%d", workers), func(b *testing.B) {
			w, err := results.Create(filepath.Join(b.TempDir(), results.FileName))
			require.NoError(b, err)
			defer w.Close()
			judged := 0
			for b.Loop() {
				p := observe.NewPipeline(judge, observe.PipelineOptions{Workers: workers}, w, func(results.Result) {})
				for _, r := range all {
					p.Put(r.round, r.file, r.store)
				}
				counts, err := p.Close()
				require.NoError(b, err)
				judged += counts.Judged
			}
			b.ReportMetric(float64(judged)/b.Elapsed().Seconds(), "exchanges/s")
		})
	}
}

// benchRound is one recorded round to judge: the round, the file of the
// recording that keeps it, and the recording.
type benchRound struct {
	round record.Round
	file  string
	store *record.Store
}

func judgeBenchReasons(res results.Result) []string {
	var out []string
	for _, r := range res.Reasons {
		out = append(out, r.Check+": "+r.Message)
	}
	return out
}

// peakRSSKiB is the process's peak resident set so far (getrusage
// ru_maxrss, in KiB on Linux).
func peakRSSKiB(tb testing.TB) float64 {
	var ru syscall.Rusage
	require.NoError(tb, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return float64(ru.Maxrss)
}
