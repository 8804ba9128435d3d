package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/cases"
	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/fixtures"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
	"github.com/gwconform/gwconform/schemas"
)

// Distinctive keys and a secret header value: none may appear in any file
// a recording run writes.
var secretKeys = map[string]string{
	"text": "sk-reclk-text-4f8a2c9e", "messages": "sk-reclk-messages-7b1d3e6f",
	"image": "sk-reclk-image-0c5e9a2b", "alt": "sk-reclk-alt-8d2f4b1a",
}

const (
	tokenVar   = "GWCONFORM_TEST_RELAY_TOKEN"
	tokenValue = "relay-tok-5e7c1a9d3b"
)

// secretArgs gives the run the distinctive keys and a secret header.
func secretArgs(t *testing.T) []string {
	t.Setenv(tokenVar, tokenValue)
	var a []string
	for _, k := range []string{"text", "messages", "image", "alt"} {
		a = append(a, "--"+k+"-key", secretKeys[k])
	}
	return append(a, "-H", "X-Relay-Token: ${"+tokenVar+"}")
}

// assertNoSecret greps every file under the directories for the keys and
// the header value.
func assertNoSecret(t *testing.T, dirs ...string) {
	t.Helper()
	files := 0
	for _, dir := range dirs {
		require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			files++
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			for kind, key := range secretKeys {
				assert.NotContains(t, string(b), key, "%s holds the %s key", path, kind)
			}
			assert.NotContains(t, string(b), tokenValue, "%s holds the secret header value", path)
			return nil
		}))
	}
	assert.Positive(t, files)
}

// key is a result's case × model.
type key struct{ caseID, model string }

// verdicts are what a replay must reproduce of each result: status,
// reasons, HTTP status and image hashes.
type verdict struct {
	Status  vocab.Status
	Reasons []vocab.Reason
	HTTP    int
	Images  []string
}

func verdicts(t *testing.T, out string) map[key]verdict {
	t.Helper()
	rs, err := results.ReadFile(filepath.Join(out, results.FileName))
	require.NoError(t, err)
	m := map[key]verdict{}
	for _, r := range rs {
		v := verdict{Status: r.Status, Reasons: r.Reasons, HTTP: r.HTTPStatus}
		for _, im := range r.Images {
			v.Images = append(v.Images, im.SHA256)
		}
		k := key{r.Case, r.Model}
		require.NotContains(t, m, k, "%v twice in %s", k, out)
		m[k] = v
	}
	return m
}

// validateRecording checks every file of a recording against the format's
// JSON Schemas.
func validateRecording(t *testing.T, dir string) int {
	t.Helper()
	set, err := schemas.Load(record.SchemaFS)
	require.NoError(t, err)
	n := 0
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		name := "exchange.schema"
		if filepath.Base(path) == record.MetaFile {
			name = "recording.schema"
		}
		vs, err := set.Validate(name, b)
		require.NoError(t, err, path)
		assert.Empty(t, vs, path)
		n++
		return nil
	}))
	return n
}

// copyCases writes the embedded catalog to a directory, with edit applied
// to chat.yaml.
func copyCases(t *testing.T, edit func(string) string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, fs.WalkDir(cases.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(cases.FS, path)
		require.NoError(t, err)
		if path == "chat.yaml" {
			b = []byte(edit(string(b)))
		}
		return os.WriteFile(filepath.Join(dir, path), b, 0o644)
	}))
	return dir
}

// A recording of the chat cases, with the gateway gone: a tampered chat
// completion fails exactly the case that reads it, with the recorded
// request id; a changed case is skipped as stale, a deleted exchange as
// not recorded, and everything else equals the recorded run.
func TestReplayTamperedStaleMissing(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	rec, live := filepath.Join(dir, "rec"), filepath.Join(dir, "live")
	code, stdout, stderr := gw(t, append([]string{"run", "--out", live, "--record", rec, "--feature", "chat.*"}, secretArgs(t)...)...)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	recorded := verdicts(t, live)
	require.Len(t, recorded, 12) // the chat cases
	validateRecording(t, rec)
	assertNoSecret(t, rec, live)

	tampered := key{"chat-json", "gen-5.5"}
	file := filepath.Join(rec, record.CallFile(record.Call{Case: tampered.caseID, Feature: "chat.basic", Model: tampered.model}))
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(b), `"role": "assistant"`), "the recorded completion, as a person edits it")
	require.NoError(t, os.WriteFile(file, []byte(strings.Replace(string(b), `"role": "assistant"`, `"role": "robot"`, 1)), 0o644))

	t.Run("tampered", func(t *testing.T) {
		out := filepath.Join(dir, "tampered")
		code, stdout, stderr := gw(t, "run", "--out", out, "--replay", rec, "--feature", "chat.*")
		assert.Equal(t, exitFailed, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
		assert.Contains(t, stderr, "replaying the recording "+rec)
		got := verdicts(t, out)
		require.Len(t, got, len(recorded))
		for k, want := range recorded {
			if k == tampered {
				continue
			}
			assert.Equal(t, want, got[k], "%v", k)
		}
		bad := got[tampered]
		assert.Equal(t, vocab.StatusFail, bad.Status)
		require.NotEmpty(t, bad.Reasons)
		for _, r := range bad.Reasons {
			assert.Contains(t, r.String(), "robot", "every reason is the tampered role")
		}

		rs, err := results.ReadFile(filepath.Join(out, results.FileName))
		require.NoError(t, err)
		ex, err := record.NewIndex(mustOpen(t, rec))
		require.NoError(t, err)
		assert.Positive(t, ex.Len())
		for _, r := range rs {
			if r.Case == tampered.caseID {
				assert.Regexp(t, `^req_[0-9a-f]+$`, r.RequestID, "a failure carries the recorded request id")
				require.NotNil(t, r.Transcript)
				assert.Equal(t, filepath.ToSlash(file), r.Transcript.Exchange)
				assert.Contains(t, r.Transcript.Rounds[0].ResponseBody, `"role": "robot"`)
			} else {
				assert.Empty(t, r.RequestID, "a pass carries no request id")
			}
		}
		md, err := os.ReadFile(filepath.Join(out, "matrix.md"))
		require.NoError(t, err)
		assert.Contains(t, string(md), "- replay of the recording "+rec)
		assert.Contains(t, string(md), `\[request id req\_`)
	})

	t.Run("stale and missing", func(t *testing.T) {
		require.NoError(t, os.Remove(filepath.Join(rec, record.CallFile(record.Call{Case: "chat-stream", Feature: "chat.stream", Model: "gen-5.5"}))))
		const prompt = "Reply with one short sentence about the sea."
		edited := copyCases(t, func(s string) string {
			return strings.Replace(s, prompt, "Reply with one short sentence about the moon.", 1) // chat-json's, the first
		})
		out := filepath.Join(dir, "stale")
		code, stdout, stderr := gw(t, "run", "--out", out, "--replay", rec, "--feature", "chat.*", "--cases", edited)
		// chat-json is the control of the chat refusals: without it judged,
		// they are inconclusive, and the run incomplete.
		assert.Equal(t, exitIncomplete, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
		got := verdicts(t, out)
		require.Len(t, got, len(recorded))
		stale, missing := got[tampered], got[key{"chat-stream", "gen-5.5"}]
		assert.Equal(t, vocab.StatusSkip, stale.Status)
		assert.Equal(t, vocab.CheckRecordingStale, stale.Reasons[0].Check)
		assert.Contains(t, stale.Reasons[0].Actual, "body sha256:")
		assert.Equal(t, vocab.StatusSkip, missing.Status)
		assert.Equal(t, vocab.CheckNoRecording, missing.Reasons[0].Check)
		refusals := []key{{"chat-no-model", "gen-5.5"}, {"chat-no-messages", "gen-5.5"}}
		for _, k := range refusals {
			assert.Equal(t, vocab.StatusInconclusive, got[k].Status, "%v", k)
			require.NotEmpty(t, got[k].Reasons)
			assert.Equal(t, vocab.CheckControl, got[k].Reasons[0].Check)
			assert.Contains(t, got[k].Reasons[0].Actual, "recording stale")
		}
		for k, want := range recorded {
			if k != tampered && k != (key{"chat-stream", "gen-5.5"}) && !slices.Contains(refusals, k) {
				assert.Equal(t, want, got[k], "%v", k)
			}
		}
		rep, err := readReport(filepath.Join(out, "report.json"))
		require.NoError(t, err)
		assert.Contains(t, rep.Notes, "recording stale: 1 verified/negative case not checked")
		assert.Contains(t, rep.Notes, "no recording: 1 verified/negative case not checked")
	})
}

func mustOpen(t *testing.T, dir string) *record.Store {
	t.Helper()
	s, _, err := record.Open(dir)
	require.NoError(t, err)
	return s
}

// The keys a recording run uses never reach a file it writes, including
// the exchanges where the gateway is sent another kind's key (model lists
// that must differ), a refused key, and no key at all.
func TestRecordingHoldsNoKey(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	rec, out := filepath.Join(dir, "rec"), filepath.Join(dir, "out")
	code, stdout, stderr := gw(t, append([]string{"run", "--out", out, "--record", rec, "--feature", "models.*,chat.errors,messages.errors"}, secretArgs(t)...)...)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	assertNoSecret(t, rec, out)
	n := validateRecording(t, rec)

	// Every kind of credential the runs sent is named, never shown.
	kinds := map[string]bool{}
	s := mustOpen(t, rec)
	files, err := s.Files()
	require.NoError(t, err)
	assert.Equal(t, n-1, len(files), "every file but recording.json is an exchange")
	for _, f := range files {
		ex, err := s.Read(f)
		require.NoError(t, err)
		for _, rd := range ex.Rounds {
			kinds[rd.Request.Key] = true
			assert.NotContains(t, rd.Request.Header, "Authorization")
			assert.Equal(t, []string{"[REDACTED]"}, rd.Request.Header["X-Relay-Token"], "the secret header is recorded redacted")
		}
	}
	var got []string
	for k := range kinds {
		got = append(got, k)
	}
	slices.Sort(got)
	assert.Equal(t, []string{"alt", "image", "messages", "none", "other", "text"}, got)

	var meta map[string]any
	b, err := os.ReadFile(filepath.Join(rec, record.MetaFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &meta))
	assert.ElementsMatch(t, []any{"text", "messages", "image", "alt"}, meta["keys"])
}

// The whole catalog recorded against the reference gateway, the gateway
// stopped, then replayed: every result equals the recorded one in status,
// reasons, HTTP status and image hashes; no key is in any file; every
// file of the recording fits its schema; the report says it is a replay.
// It logs the recording's size and its bytes per final image.
func TestRecordReplayWholeCatalog(t *testing.T) {
	if testing.Short() {
		t.Skip("records and replays the whole catalog (make test runs it in its non-race pass)")
	}
	clearEnv(t)
	keys := refgateway.Keys{Text: secretKeys["text"], Messages: secretKeys["messages"], Image: secretKeys["image"], Alt: secretKeys["alt"]}
	srv, err := conformancetest.Start(refgateway.Config{Keys: keys}, fixtures.FS)
	require.NoError(t, err)
	dir := t.TempDir()
	rec, live, replay := filepath.Join(dir, "rec"), filepath.Join(dir, "live"), filepath.Join(dir, "replay")
	code, stdout, stderr := gw(t, append([]string{"run", "--out", live, "--record", rec, "--base-url", srv.BaseURL, "--public-image-url", srv.PublicImageURL}, secretArgs(t)...)...)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	srv.Close()

	code, stdout, stderr = gw(t, "run", "--out", replay, "--replay", rec)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	recorded, got := verdicts(t, live), verdicts(t, replay)
	require.Len(t, got, len(recorded))
	same := 0
	for k, want := range recorded {
		if assert.Equal(t, want, got[k], "%v", k) {
			same++
		}
	}
	t.Logf("%d of %d results of the replay equal the recorded run's", same, len(recorded))
	replayed, err := results.ReadFile(filepath.Join(replay, results.FileName))
	require.NoError(t, err)
	for _, r := range replayed {
		assert.Zero(t, r.CostUnits, "a replay spends nothing")
	}

	assertNoSecret(t, rec, live, replay)
	files := validateRecording(t, rec)
	rep, err := readReport(filepath.Join(replay, "report.json"))
	require.NoError(t, err)
	require.NotNil(t, rep.Metadata.Replay)
	assert.Equal(t, rec, rep.Metadata.Replay.Recording)
	assert.Equal(t, srv.BaseURL, rep.Metadata.Replay.BaseURL)
	assert.Contains(t, rep.Notes[0], "replay of the recording "+rec)
	set, err := schemas.Load(reportv1.SchemaFS)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(replay, "report.json"))
	require.NoError(t, err)
	vs, err := set.Validate("report.schema", b)
	require.NoError(t, err)
	assert.Empty(t, vs)

	// Sizes: the recording, its blobs, and the bytes per final image
	// (previews of a stream are not final).
	size := func(sub string) (n int64, count int) {
		require.NoError(t, filepath.WalkDir(filepath.Join(rec, sub), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			info, err := d.Info()
			require.NoError(t, err)
			n += info.Size()
			count++
			return nil
		}))
		return n, count
	}
	total, _ := size("")
	blobs, nblobs := size(record.BlobsDir)
	exchanges, nex := size(record.ExchangesDir)
	rs, err := results.ReadFile(filepath.Join(live, results.FileName))
	require.NoError(t, err)
	finals := 0
	for _, r := range rs {
		for _, im := range r.Images {
			if !strings.Contains(im.Where, "partial_image") {
				finals++
			}
		}
	}
	require.Positive(t, finals)
	t.Logf("recording of the whole catalog: %.1f MB in %d files (%d exchanges: %.1f MB; %d blobs: %.1f MB); %d final images: %.0f KB of recording per final image",
		float64(total)/1e6, files+nblobs, nex, float64(exchanges)/1e6, nblobs, float64(blobs)/1e6, finals, float64(total)/float64(finals)/1e3)
	// What the blobs save: each reference inline as base64, as go-vcr
	// would keep it.
	var inline int64
	refRE := regexp.MustCompile(`gwconform-blob:([0-9a-f]{64}\.[a-z0-9]+)`)
	require.NoError(t, filepath.WalkDir(filepath.Join(rec, record.ExchangesDir), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, m := range refRE.FindAllSubmatch(b, -1) {
			info, err := os.Stat(filepath.Join(rec, record.BlobsDir, string(m[1])))
			require.NoError(t, err)
			inline += (info.Size() + 2) / 3 * 4
		}
		return nil
	}))
	t.Logf("the same exchanges with every payload inline as base64: %.1f MB", float64(exchanges+inline)/1e6)
}

// A call the gateway throttled once is replayed with its second attempt,
// at once: the same pass after two attempts (not flaky: waiting on the
// rate limit is none), without the wait it asked for.
func TestReplayOfARetryDoesNotWait(t *testing.T) {
	clearEnv(t)
	g, err := refgateway.New(refgateway.Config{})
	require.NoError(t, err)
	var throttled atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && throttled.CompareAndSwap(false, true) {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		g.ServeHTTP(w, r)
	}))
	defer srv.Close()
	def := refgateway.DefaultKeys()
	dir := t.TempDir()
	rec, live, replay := filepath.Join(dir, "rec"), filepath.Join(dir, "live"), filepath.Join(dir, "replay")
	code, _, stderr := gw(t, "run", "--out", live, "--record", rec, "--base-url", srv.URL, "--text-key", def.Text, "--case", "chat-json")
	require.Equal(t, exitOK, code, stderr)
	srv.Close()
	// The recording now asks for two minutes: a replay that honoured it
	// would outlast the one-minute guard by far.
	exchange := filepath.Join(rec, "exchanges", "chat.basic", "chat-json--gen-5.5.json")
	b, err := os.ReadFile(exchange)
	require.NoError(t, err)
	recorded := bytes.Replace(b, []byte(`"Retry-After": [
            "1"
          ]`), []byte(`"Retry-After": ["120"]`), 1)
	require.NotEqual(t, b, recorded, "the recorded Retry-After")
	require.NoError(t, os.WriteFile(exchange, recorded, 0o644))
	replayed := make(chan struct{})
	go func() {
		defer close(replayed)
		code, _, stderr = gw(t, "run", "--out", replay, "--replay", rec, "--case", "chat-json")
	}()
	select {
	case <-replayed:
	case <-time.After(time.Minute):
		t.Fatal("the replay waited for the recorded Retry-After")
	}
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, verdicts(t, live), verdicts(t, replay))
	rs, err := results.ReadFile(filepath.Join(replay, results.FileName))
	require.NoError(t, err)
	require.Len(t, rs, 1)
	assert.Equal(t, 2, rs[0].Attempts)
	assert.False(t, rs[0].Flaky, "a wait on the rate limit is no flakiness")
	assert.Equal(t, 1, rs[0].Waits)
	require.NotNil(t, rs[0].Transcript)
	assert.Equal(t, []int{429, 200}, []int{rs[0].Transcript.Rounds[0].Status, rs[0].Transcript.Rounds[1].Status})
}
