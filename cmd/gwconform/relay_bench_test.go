//go:build linux

package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	pngenc "image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/fixtures"
)

// The memory benchmarks of serve --upstream URL --judge: what a judging
// relay holds while real traffic passes. Peak RSS is the process's, so
// each is meant to run alone (make bench runs each in a process of its
// own, -benchtime 1x); they report figures and assert no bound.

// relayConcurrency is how many clients send at once.
const relayConcurrency = 16

// relayLoad sends n requests through base, relayConcurrency at a time,
// each read to its end; after is called once, when the first `at`
// requests have been answered.
func relayLoad(tb testing.TB, base string, n, at int, req func(i int) benchStream, after func()) {
	tb.Helper()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: relayConcurrency}}
	defer client.CloseIdleConnections()
	next := make(chan int)
	var done atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, relayConcurrency)
	for range relayConcurrency {
		wg.Go(func() {
			for i := range next {
				s := req(i)
				r, err := http.NewRequest(http.MethodPost, base+s.path, strings.NewReader(s.body))
				if err != nil {
					errs <- err
					return
				}
				r.Header.Set("Authorization", "Bearer "+s.key)
				r.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(r)
				if err != nil {
					errs <- err
					return
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("%s: %s, %v", s.name, resp.Status, err)
					return
				}
				if done.Add(1) == int64(at) && after != nil {
					after()
				}
			}
		})
	}
	for i := range n {
		select {
		case next <- i:
		case err := <-errs:
			close(next)
			wg.Wait()
			tb.Fatal(err)
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		tb.Fatal(err)
	default:
	}
}

// BenchmarkRelayImageStreamsRSS measures the peak RSS of a judging relay
// passing 500 image streams of the reference gateway (partial_images 3,
// 1536x1024: the largest answers of the verified rows' kind), 16 at a
// time, and judging them.
func BenchmarkRelayImageStreamsRSS(b *testing.B) { benchImageStreamsRSS(b, "--judge", "--out") }

// BenchmarkRecordingRelayImageStreamsRSS is BenchmarkRelayImageStreamsRSS
// for a relay that records without judging: the relay and its tap alone
// (beside the in-process gateway that draws the images).
func BenchmarkRecordingRelayImageStreamsRSS(b *testing.B) { benchImageStreamsRSS(b, "--record") }

// BenchmarkDirectImageStreamsRSS is the baseline of the two: the same
// streams sent to the gateway direct, with no relay.
func BenchmarkDirectImageStreamsRSS(b *testing.B) { benchImageStreamsRSS(b) }

func benchImageStreamsRSS(b *testing.B, flags ...string) {
	gw, err := conformancetest.Start(refgateway.Config{}, fixtures.FS)
	require.NoError(b, err)
	b.Cleanup(gw.Close)
	// A few prompts: the gateway draws each once, and the relay records
	// rounds of a few distinct requests, appended to their files.
	prompts := []string{"a lighthouse on a rocky coast", "a fox in the snow", "glaciers at dawn", "a desert at night"}
	const streams = 500
	for b.Loop() {
		base, stop := gw.BaseURL, func() int { return 0 }
		if flags != nil {
			base, stop, _ = startServeCode(b, append(append([]string{"--upstream", gw.BaseURL}, flags...), filepath.Join(b.TempDir(), "out"))...)
		}
		relayLoad(b, base, streams, streams, func(i int) benchStream {
			return benchStream{"image", "/v1/images/generations", gw.Keys.Image,
				fmt.Sprintf(`{"model":"gen-image-2.5-flare","prompt":%q,"size":"1536x1024","stream":true,"partial_images":3}`, prompts[i%len(prompts)])}
		}, nil)
		stop()
	}
	b.ReportMetric(peakRSSKiB(b), "peak-RSS-KiB")
}

// BenchmarkRelayLargeImageStreamsRSS measures the peak RSS of a recording
// relay (serve --upstream URL --record, no judge: the relay alone) passing
// 100 image streams of the size a real gateway may send, 16 at a time:
// three previews and a final image, each 1536x1024 of noise as PNG (6.3
// MB, 8.4 MB in base64: 34 MB a stream, the worst case the cap is set
// above). The upstream sends the same bytes each time, from memory.
func BenchmarkRelayLargeImageStreamsRSS(b *testing.B) {
	img := image.NewNRGBA(image.Rect(0, 0, 1536, 1024))
	rand.NewChaCha8([32]byte{1}).Read(img.Pix)
	var png bytes.Buffer
	require.NoError(b, (&pngenc.Encoder{CompressionLevel: pngenc.NoCompression}).Encode(&png, img))
	b64 := base64.StdEncoding.EncodeToString(png.Bytes())
	var stream bytes.Buffer
	for i := range 3 {
		fmt.Fprintf(&stream, "event: image_generation.partial_image\ndata: {\"type\":\"image_generation.partial_image\",\"partial_image_index\":%d,\"b64_json\":\"%s\"}\n\n", i, b64)
	}
	fmt.Fprintf(&stream, "event: image_generation.completed\ndata: {\"type\":\"image_generation.completed\",\"b64_json\":\"%s\"}\n\n", b64)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for chunk := range slices.Chunk(stream.Bytes(), 32<<10) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}))
	b.Cleanup(up.Close)
	keys := refgateway.DefaultKeys()
	const streams = 100
	for b.Loop() {
		relay, stop, _ := startServeCode(b, "--upstream", up.URL, "--record", filepath.Join(b.TempDir(), "rec"))
		relayLoad(b, relay, streams, streams, func(int) benchStream {
			return benchStream{"image", "/v1/images/generations", keys.Image,
				`{"model":"gen-image-2.5-flare","prompt":"a lighthouse","size":"1536x1024","stream":true,"partial_images":3}`}
		}, nil)
		stop()
	}
	b.ReportMetric(float64(stream.Len())/(1<<20), "MB/stream")
	b.ReportMetric(peakRSSKiB(b), "peak-RSS-KiB")
}

// BenchmarkRelayChatRSS measures whether a judging relay's memory grows
// with the traffic it has passed: 20,000 chat exchanges, JSON and
// streams, 16 at a time, and the peak RSS after the first 1,000 and at
// the end (rss-ratio: end over first; 1 is flat).
func BenchmarkRelayChatRSS(b *testing.B) { benchChatRSS(b, "--judge", "--out") }

// BenchmarkRecordingRelayChatRSS is BenchmarkRelayChatRSS for a relay that
// records without judging (serve --upstream URL --record): the relay and
// its tap alone.
func BenchmarkRecordingRelayChatRSS(b *testing.B) { benchChatRSS(b, "--record") }

func benchChatRSS(b *testing.B, flags ...string) {
	gw, err := conformancetest.Start(refgateway.Config{}, fixtures.FS)
	require.NoError(b, err)
	b.Cleanup(gw.Close)
	const total, first = 20000, 1000
	var early, end, lost float64
	for b.Loop() {
		out := filepath.Join(b.TempDir(), "out")
		relay, stop, _ := startServeCode(b, append(append([]string{"--upstream", gw.BaseURL}, flags...), out)...)
		relayLoad(b, relay, total, first, func(i int) benchStream {
			// 64 distinct requests of each kind: the relay appends their
			// rounds to files that grow with the traffic.
			stream := i%2 == 1
			return benchStream{"chat", "/v1/chat/completions", gw.Keys.Text,
				fmt.Sprintf(`{"model":"gen-5.5","stream":%t,"max_tokens":64,"messages":[{"role":"user","content":"Say something about river %d."}]}`, stream, i%64)}
		}, func() { early = peakRSSKiB(b) })
		end = peakRSSKiB(b)
		stop()
		if flags[0] == "--judge" {
			// Every exchange is judged: one client result each.
			rs, err := results.ReadFile(filepath.Join(out, results.FileName))
			require.NoError(b, err)
			judged := 0
			for _, r := range rs {
				if r.Side == results.SideClient {
					judged++
				}
			}
			lost = float64(total - judged)
		}
	}
	b.ReportMetric(early, "peak-RSS-1000-KiB")
	b.ReportMetric(end, "peak-RSS-20000-KiB")
	b.ReportMetric(end/early, "rss-ratio")
	if flags[0] == "--judge" {
		b.ReportMetric(lost, "exchanges-lost")
	}
}
