package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/fixtures"
)

// namedGateway starts the reference gateway answering under gateway-side
// names (serve --vendor-words, --model-name) and returns it with the flags
// of its keys.
func namedGateway(t *testing.T, cfg refgateway.Config) (*conformancetest.Server, []string) {
	t.Helper()
	gw, err := conformancetest.Start(cfg, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(gw.Close)
	return gw, []string{"--base-url", gw.BaseURL, "--text-key", gw.Keys.Text, "--messages-key", gw.Keys.Messages,
		"--image-key", gw.Keys.Image, "--alt-key", gw.Keys.Alt, "--public-image-url", gw.PublicImageURL}
}

// verdicts are a run's results as case × model → status, the spec's ids
// as keys.
func verdictsOf(t *testing.T, out string) map[string]vocab.Status {
	t.Helper()
	rs, err := results.ReadFile(filepath.Join(out, results.FileName))
	require.NoError(t, err)
	got := map[string]vocab.Status{}
	for _, r := range rs {
		got[r.Case+" × "+r.Model] = r.Status
	}
	return got
}

// headline is the verdict line a run printed.
var headlineLine = regexp.MustCompile(`(?m)^(PASS|FAIL|INCOMPLETE): .*$`)

// TestRunAgainstGatewayNames: a gateway that names every model with a
// vendor word, plain or with a provider path, is tested under its own
// names with no flag: the same verdicts, case by case, as the spec's ids
// get, each model resolved from its key's list and said once.
func TestRunAgainstGatewayNames(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the verified and negative catalog three times (make test runs it in its non-race pass)")
	}
	clearEnv(t)
	tier := []string{"--tier", "verified,negative", "--retries", "0"}
	_, flags := namedGateway(t, refgateway.Config{})
	spec := filepath.Join(t.TempDir(), "spec")
	code, stdout, stderr := gw2(t, "run", spec, flags, tier)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	want := verdictsOf(t, spec)
	wantHeadline := headlineLine.FindString(stdout)

	for _, tt := range []struct {
		words string
		said  []string
		sent  map[string]string // case × spec model → the id its result names
	}{
		{"gen=gpt,msg=claude,alt=gemini",
			[]string{"text key: gen-5.5 → gpt-5.5;", "messages key: msg-haiku-4-5-20251001 → claude-haiku-4-5-20251001;", "alt key: alt-flash → gemini-flash;"},
			map[string]string{"chat-json × gen-5.5": "gpt-5.5", "edit-n-2 × gen-image-2.5-flare": "gpt-image-2.5-flare"}},
		{"gen=openai/gpt,msg=anthropic/claude,alt=google/gemini",
			[]string{"text key: gen-5.5 → openai/gpt-5.5;", "image key: gen-image-2 → openai/gpt-image-2;", "alt key: alt-flash → google/gemini-flash;"},
			map[string]string{"messages-json × msg-sonnet-5": "anthropic/claude-sonnet-5", "messages-alt-json × alt-flash": "google/gemini-flash"}},
	} {
		t.Run(tt.words, func(t *testing.T) {
			words, err := refgateway.ParseVendorWords([]string{tt.words})
			require.NoError(t, err)
			_, flags := namedGateway(t, refgateway.Config{VendorWords: words})
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, stderr := gw2(t, "run", out, flags, tier)
			require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
			assert.Equal(t, wantHeadline, headlineLine.FindString(stdout), "the same counts as under the spec's ids")
			assert.Equal(t, want, verdictsOf(t, out), "the same verdict for every case × model")
			for _, line := range tt.said {
				assert.Contains(t, stderr, line)
			}
			rs, err := results.ReadFile(filepath.Join(out, results.FileName))
			require.NoError(t, err)
			for _, r := range rs {
				if id, ok := tt.sent[r.Case+" × "+r.Model]; ok {
					assert.Equal(t, id, r.GatewayModel, "%s × %s", r.Case, r.Model)
					require.NotNil(t, r.Request)
					assert.Contains(t, r.Request.Body, `"`+id+`"`, "the request names the gateway's id")
				}
				if r.Case == "messages-retired-model-404" {
					require.NotNil(t, r.Request)
					assert.Contains(t, r.Request.Body, strings.Replace(strings.SplitN(tt.words, ",", 3)[1], "msg=", `"`, 1)+"-sonnet-4-6", "the retired id in the key's own words")
				}
			}
		})
	}
}

// TestRunAgainstAnAlias: a gateway that serves gen-5.5 under an alias no
// rule can resolve: without the map the run skips its cases, sends nothing
// for them, and ends incomplete with a line naming the flag and what the
// text key lists; with the map it passes.
func TestRunAgainstAnAlias(t *testing.T) {
	clearEnv(t)
	_, flags := namedGateway(t, refgateway.Config{ModelNames: map[string]string{"gen-5.5": "company-chat"}})
	sel := []string{"--feature", "chat.*,models.*", "--tier", "verified,negative", "--retries", "0"}

	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := gw2(t, "run", out, flags, sel)
	require.Equal(t, exitIncomplete, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	const line = "gen-5.5 is not listed for the text key (it lists company-chat, gen-5.6-luna, gen-5.6-sol, gen-5.6-terra, gen-6-astra); if the gateway names it otherwise, map it: --model-map gen-5.5=ID"
	assert.Contains(t, stderr, line, "said before the first call")
	assert.Contains(t, stdout, line, "and in the headline's notes")
	rs, err := results.ReadFile(filepath.Join(out, results.FileName))
	require.NoError(t, err)
	skipped := 0
	for _, r := range rs {
		if r.Status == vocab.StatusSkip && len(r.Reasons) > 0 && r.Reasons[0].Check == vocab.CheckNotListed {
			skipped++
			assert.Zero(t, r.Requests, "nothing sent for %s", r.Case)
		}
		assert.NotEqual(t, vocab.StatusFail, r.Status, "%s × %s: %v", r.Case, r.Model, r.Reasons)
	}
	assert.Positive(t, skipped)

	out = filepath.Join(t.TempDir(), "mapped")
	code, stdout, stderr = gw2(t, "run", out, flags, sel, []string{"--model-map", "gen-5.5=company-chat"})
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	assert.Contains(t, stderr, "text key: gen-5.5 → company-chat (--model-map)")
	assert.NotContains(t, stdout, "no case covers company-chat", "a mapped model is no new model")

	// A left side that is no model of the catalog is refused at once.
	code, _, stderr = gw2(t, "run", t.TempDir(), flags, sel, []string{"--model-map", "gen-5.4=company-chat"})
	assert.Equal(t, exitNotStart, code)
	assert.Contains(t, stderr, `gen-5.4 is no model of the catalog nor one of the words gen, msg, alt; did you mean "gen-5.5"?`)
}

// TestRunWithAnAmbiguousList: two listed ids name one spec model; the run
// does not start, and says which and how to pick.
func TestRunWithAnAmbiguousList(t *testing.T) {
	clearEnv(t)
	_, flags := namedGateway(t, refgateway.Config{ModelNames: map[string]string{"gen-5.5": "gpt-5.5"},
		ExtraModels: []refgateway.ExtraModel{{Kind: refgateway.KindText, ID: "openai/gpt-5.5"}}})
	code, _, stderr := gw2(t, "run", t.TempDir(), flags, []string{"--case", "chat-json"})
	assert.Equal(t, exitNotStart, code)
	assert.Contains(t, stderr, "gen-5.5: the text key lists 2 ids that name it (gpt-5.5, openai/gpt-5.5); pick one with --model-map gen-5.5=ID")
	code, _, stderr = gw2(t, "run", t.TempDir(), flags, []string{"--case", "chat-json", "--model-map", "gen-5.5=gpt-5.5"})
	assert.Equal(t, exitOK, code, stderr)
}

// TestProbeUnderGatewayNames: probe against a gateway that names every
// model with a vendor word proposes only the one model no spec id names.
func TestProbeUnderGatewayNames(t *testing.T) {
	clearEnv(t)
	words, err := refgateway.ParseVendorWords([]string{"gen=gpt,msg=claude,alt=gemini"})
	require.NoError(t, err)
	_, flags := namedGateway(t, refgateway.Config{VendorWords: words, ExtraModels: []refgateway.ExtraModel{{Kind: refgateway.KindText, ID: "gpt-5.7"}}})
	code, stdout, stderr := gw2(t, "probe", t.TempDir(), flags, []string{"--feature", "chat.basic", "--tier", "verified"})
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	var proposed []string
	for _, m := range regexp.MustCompile(`(?m)^new model (\S+) \(`).FindAllStringSubmatch(stdout, -1) {
		proposed = append(proposed, m[1])
	}
	assert.Equal(t, []string{"gpt-5.7"}, proposed)
	assert.True(t, slices.ContainsFunc(strings.Split(stdout, "\n"), func(l string) bool { return strings.HasPrefix(l, "  - model: gpt-5.7") }), stdout)
}

// A recording keeps the names the run sent: its replay renders the same
// requests (no recording-stale), with no gateway to read a list from.
func TestReplayKeepsGatewayNames(t *testing.T) {
	clearEnv(t)
	words, err := refgateway.ParseVendorWords([]string{"gen=gpt,msg=claude,alt=gemini"})
	require.NoError(t, err)
	_, flags := namedGateway(t, refgateway.Config{VendorWords: words})
	dir := t.TempDir()
	rec, live, replay := filepath.Join(dir, "rec"), filepath.Join(dir, "live"), filepath.Join(dir, "replay")
	sel := []string{"--case", "chat-json,messages-retired-model-404,models-image-lists-*", "--retries", "0"}
	code, stdout, stderr := gw2(t, "run", live, flags, sel, []string{"--record", rec})
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	code, stdout, stderr = gw(t, append([]string{"run", "--out", replay, "--replay", rec}, sel...)...)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	assert.Equal(t, verdictsOf(t, live), verdictsOf(t, replay))
	for k, st := range verdictsOf(t, replay) {
		assert.Equal(t, vocab.StatusPass, st, k)
	}
}

// TestRunWithAnUnreadableList: a gateway whose model list answers 500
// (models-list-500) is sent no guessed id. Without a map its models are
// not checked, the run is incomplete and says which flag names them, and
// only the list's own cases fail; with the word form alone every other
// result passes.
func TestRunWithAnUnreadableList(t *testing.T) {
	clearEnv(t)
	words, err := refgateway.ParseVendorWords([]string{"gen=gpt,msg=claude,alt=gemini"})
	require.NoError(t, err)
	_, flags := namedGateway(t, refgateway.Config{VendorWords: words, Faults: []string{"models-list-500"}})
	sel := []string{"--case", "chat-json,chat-no-model,messages-json,messages-retired-model-404,messages-alt-image-input,gen-basic,models-text-list", "--retries", "0"}

	out := t.TempDir()
	code, stdout, stderr := gw2(t, "run", out, flags, sel)
	assert.Equal(t, exitFailed, code, "the list's own case fails")
	assert.Contains(t, stderr, "the text key's model list could not be read (HTTP 500); nothing is sent under a guessed id; name its models with the word form: --model-map gen=gpt (every gen- model)")
	assert.Contains(t, stdout, "the messages key's model list could not be read (HTTP 500)")
	for cm, st := range verdictsOf(t, out) {
		if strings.HasPrefix(cm, "models-") {
			assert.Equal(t, vocab.StatusFail, st, cm)
		} else {
			assert.Equal(t, vocab.StatusSkip, st, "%s: nothing sent under a guessed id", cm)
		}
	}

	noList := slices.Clone(sel)
	noList[1] = strings.TrimSuffix(noList[1], ",models-text-list")
	code, stdout, _ = gw2(t, "run", t.TempDir(), flags, noList)
	assert.Equal(t, exitIncomplete, code, "nothing failed, nothing checked: %s", tail(stdout))
	assert.Contains(t, stdout, "INCOMPLETE: incomplete: none of the 10 verified/negative cases selected ran")
	assert.Contains(t, stdout, "6 verified/negative cases not checked: the messages key's model list could not be read (HTTP 500); nothing is sent under a guessed id; name its models with the word form: --model-map msg=claude")

	out = t.TempDir()
	code, stdout, stderr = gw2(t, "run", out, flags, sel, []string{"--model-map", "gen=gpt,msg=claude,alt=gemini"})
	assert.Equal(t, exitFailed, code, "%s\n%s", tail(stdout), stderr)
	assert.NotContains(t, stderr, "listing the gateway's models for coverage", "an unread list is said once, by the preflight")
	for cm, st := range verdictsOf(t, out) {
		if strings.HasPrefix(cm, "models-") {
			assert.Equal(t, vocab.StatusFail, st, cm)
		} else {
			assert.Equal(t, vocab.StatusPass, st, cm)
		}
	}
}

// TestRetiredModelStillServed: a gateway that still serves the retired
// model under its vendor name fails the retired-id case whether the word
// is learned from the list or given with --model-map, and the retired id
// may be mapped by its own id.
func TestRetiredModelStillServed(t *testing.T) {
	clearEnv(t)
	words, err := refgateway.ParseVendorWords([]string{"gen=gpt,msg=claude,alt=gemini"})
	require.NoError(t, err)
	_, flags := namedGateway(t, refgateway.Config{VendorWords: words,
		ExtraModels: []refgateway.ExtraModel{{Kind: refgateway.KindMessages, ID: "msg-sonnet-4-6"}}})
	sel := []string{"--case", "messages-retired-model-404,messages-json", "--retries", "0"}
	for _, extra := range [][]string{nil, {"--model-map", "msg=claude"}, {"--model-map", "msg-sonnet-4-6=claude-sonnet-4-6"}} {
		out := t.TempDir()
		code, stdout, _ := gw2(t, "run", out, flags, sel, extra)
		assert.Equal(t, exitFailed, code, "%v: %s", extra, tail(stdout))
		for cm, st := range verdictsOf(t, out) {
			if strings.HasPrefix(cm, "messages-retired-model-404") {
				assert.Equal(t, vocab.StatusFail, st, "%v: %s", extra, cm)
			}
		}
	}
}

// TestGatewayNamesBeforeTheLists: plan, show and waivers take a spec
// model in the vendor table's words (gpt-image-2 for gen-image-2)
// wherever run does, before any list was read.
func TestGatewayNamesBeforeTheLists(t *testing.T) {
	clearEnv(t)
	code, stdout, stderr := gw(t, "plan", "--model", "gpt-image-2", "--case", "gen-basic")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "gen-image-2")
	assert.NotContains(t, stderr, "did you mean")

	out := t.TempDir()
	waivers := filepath.Join(t.TempDir(), "waivers.yaml")
	require.NoError(t, os.WriteFile(waivers, []byte("- case: gen-basic\n  model: gpt-image-2\n  reason: the relay renames the model\n  link: https://tracker.test/T-9\n  expires: 2099-01-01\n"), 0o644))
	code, stdout, stderr = gw(t, "run", "--out", out, "--case", "gen-basic", "--model", "gpt-image-2", "--waivers", waivers)
	require.Equal(t, exitOK, code, "%s\n%s", tail(stdout), stderr)
	assert.Contains(t, stdout, "no longer needed", "the waiver naming gpt-image-2 covers gen-image-2's result")

	code, stdout, stderr = gw(t, "show", "--out", out, "--model", "gpt-image-2", "gen-basic")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "gen-basic")
}

// TestProbeProposesAMap: where the text key lists an alias in place of
// gen-5.5, probe proposes --model-map gen-5.5=company-chat, not a new
// model to add; a second unknown id leaves the pairing to the user.
func TestProbeProposesAMap(t *testing.T) {
	clearEnv(t)
	sel := []string{"--feature", "chat.basic", "--tier", "verified"}
	_, flags := namedGateway(t, refgateway.Config{ModelNames: map[string]string{"gen-5.5": "company-chat"}})
	code, stdout, stderr := gw2(t, "probe", t.TempDir(), flags, sel)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	assert.Contains(t, stdout, "# gen-5.5 is not in the text key's list, and company-chat is the one model it lists that the catalog does not know:")
	assert.Contains(t, stdout, "\n--model-map gen-5.5=company-chat\n")
	assert.NotContains(t, stdout, "  - model: company-chat", "no addition for the alias")

	_, flags = namedGateway(t, refgateway.Config{ModelNames: map[string]string{"gen-5.5": "company-chat"},
		ExtraModels: []refgateway.ExtraModel{{Kind: refgateway.KindText, ID: "company-chat-mini"}}})
	code, stdout, stderr = gw2(t, "probe", t.TempDir(), flags, sel)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", tail(stdout), stderr)
	assert.NotContains(t, stdout, "--model-map")
}
