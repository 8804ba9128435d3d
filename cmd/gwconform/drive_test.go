package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	goopenai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	lcanthropic "github.com/tmc/langchaingo/llms/anthropic"
	lcopenai "github.com/tmc/langchaingo/llms/openai"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/fixtures"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// The drive: each library of the table of clients that installs here is
// driven against the reference gateway, clean and under each fault that
// breaks a dependency the table names, and what it does is held against
// what the table predicts. The prediction is the table's own: the
// readiness a run of the needs' cases under the same fault gives the
// library × feature. NOT READY predicts the library's plain call fails;
// READY and LIMITED (a need of one use, an accumulator, fails) predict it
// works.

// driveFaults are the faults of the fault table that make a need of the
// table fail: every fault was run through the needs' cases, and these are
// the ones whose readiness differs from the clean run's (the rest leave
// every library × feature READY, so they predict what the clean drive
// already shows). TestDriveFaultsDiffer finds them again.
var driveFaults = []string{
	"block-index-gap", "block-text-parts", "chat-data-not-json", "chat-id-changes",
	"chat-refuses-all", "chat-usage-every-chunk", "chat-without-v1", "choices-object",
	"content-string", "data-split", "delta-usage-missing", "edit-multipart-refused",
	"error-member-null", "image-routes-missing", "messages-max-tokens-refused", "messages-no-stop",
	"messages-under-prefix", "messages-unnamed-events", "messages-untyped-events", "missing-field",
	"no-blank-lines", "png-compression-required", "reference-1024-refused", "role-other",
	"stream-by-default", "stream-cut", "stream-false-streams", "stream-ignored",
	"string-content-refused", "success-201", "success-300", "text-blocks-refused",
	"text-in-block-start", "usage-input-strings", "usage-output-strings", "verified-model-404",
	"wrong-content-type", "wrong-type",
}

// driveTimeout bounds each call: a call still running then is a hang.
const driveTimeout = 90 * time.Second

// Outcomes of a driven call.
const (
	driveWorks = "works"
	driveFails = "fails"
	driveHangs = "hangs"
)

// driveOutcome is what one call did: works, fails or hangs, and what the
// library said.
type driveOutcome struct {
	Client  string `json:"client"`
	Feature string `json:"feature"`
	Outcome string `json:"outcome"`
	Detail  string `json:"detail,omitempty"`
}

// driveCall is one library's plain call of one feature: it returns an
// error for a failure the library raised or a wrong value it handed back.
type driveCall struct {
	client, feature string
	call            func(ctx context.Context, base string) error
}

var driveKeys = refgateway.DefaultKeys()

// driveModels are the models the drive's calls name.
var driveModels = []string{"gen-5.5", "msg-sonnet-5", "gen-image-2"}

// errNoText is a call that returned no error and no text: a wrong value.
var errNoText = errors.New("no error, but no text")

var goDriveCalls = []driveCall{
	{"openai-go", "chat.basic", func(ctx context.Context, base string) error {
		res, err := driveOpenAI(base, driveKeys.Text).Chat.Completions.New(ctx, judgeChatParams())
		if err != nil {
			return err
		}
		if len(res.Choices) == 0 || strings.TrimSpace(res.Choices[0].Message.Content) == "" {
			return errNoText
		}
		return nil
	}},
	{"openai-go", "chat.stream", func(ctx context.Context, base string) error {
		stream := driveOpenAI(base, driveKeys.Text).Chat.Completions.NewStreaming(ctx, judgeChatParams())
		defer stream.Close()
		var text strings.Builder
		for stream.Next() {
			for _, c := range stream.Current().Choices {
				text.WriteString(c.Delta.Content)
			}
		}
		return textOrErr(text.String(), stream.Err())
	}},
	{"openai-go", "images.generate", func(ctx context.Context, base string) error {
		res, err := driveOpenAI(base, driveKeys.Image).Images.Generate(ctx, openai.ImageGenerateParams{
			Model: "gen-image-2", Prompt: "A lighthouse at dusk.", Size: "1024x1024"})
		if err != nil {
			return err
		}
		return imageOrErr(len(res.Data) > 0 && res.Data[0].B64JSON != "")
	}},
	{"openai-go", "images.edit.multipart", func(ctx context.Context, base string) error {
		ref, err := fs.ReadFile(fixtures.FS, fixtures.RefA)
		if err != nil {
			return err
		}
		p := openai.ImageEditParams{Model: "gen-image-2", Prompt: "Add a small red boat on the horizon.", Size: "1024x1024",
			Image: openai.ImageEditParamsImageUnion{OfFile: openai.File(bytes.NewReader(ref), "ref-a-1024.png", "image/png")}}
		res, err := driveOpenAI(base, driveKeys.Image).Images.Edit(ctx, p)
		if err != nil {
			return err
		}
		return imageOrErr(len(res.Data) > 0 && res.Data[0].B64JSON != "")
	}},
	{"anthropic-sdk-go", "messages.basic", func(ctx context.Context, base string) error {
		m, err := driveAnthropic(base).Messages.New(ctx, judgeMessageParams("msg-sonnet-5", 256))
		if err != nil {
			return err
		}
		var text strings.Builder
		for _, b := range m.Content {
			text.WriteString(b.Text)
		}
		return textOrErr(text.String(), nil)
	}},
	{"anthropic-sdk-go", "messages.stream", func(ctx context.Context, base string) error {
		stream := driveAnthropic(base).Messages.NewStreaming(ctx, judgeMessageParams("msg-sonnet-5", 256))
		defer stream.Close()
		var text strings.Builder
		for stream.Next() {
			if d, ok := stream.Current().AsAny().(anthropic.ContentBlockDeltaEvent); ok {
				text.WriteString(d.Delta.Text)
			}
		}
		return textOrErr(text.String(), stream.Err())
	}},
	{"go-openai", "chat.basic", func(ctx context.Context, base string) error {
		res, err := driveGoOpenAI(base, driveKeys.Text).CreateChatCompletion(ctx, goOpenAIChat())
		if err != nil {
			return err
		}
		if len(res.Choices) == 0 {
			return errNoText
		}
		return textOrErr(res.Choices[0].Message.Content, nil)
	}},
	{"go-openai", "chat.stream", func(ctx context.Context, base string) error {
		stream, err := driveGoOpenAI(base, driveKeys.Text).CreateChatCompletionStream(ctx, goOpenAIChat())
		if err != nil {
			return err
		}
		defer stream.Close()
		var text strings.Builder
		for {
			chunk, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				return textOrErr(text.String(), nil)
			}
			if err != nil {
				return err
			}
			for _, c := range chunk.Choices {
				text.WriteString(c.Delta.Content)
			}
		}
	}},
	{"go-openai", "images.generate", func(ctx context.Context, base string) error {
		res, err := driveGoOpenAI(base, driveKeys.Image).CreateImage(ctx, goopenai.ImageRequest{
			Model: "gen-image-2", Prompt: "A lighthouse at dusk.", Size: "1024x1024"})
		if err != nil {
			return err
		}
		return imageOrErr(len(res.Data) > 0 && res.Data[0].B64JSON != "")
	}},
	{"go-openai", "images.edit.multipart", func(ctx context.Context, base string) error {
		ref, err := fs.ReadFile(fixtures.FS, fixtures.RefA)
		if err != nil {
			return err
		}
		// go-openai names the part after the reader's Name(), as an
		// *os.File has; a bytes.Reader would be sent as "image".
		f := filepath.Join(os.TempDir(), fmt.Sprintf("gwconform-drive-%d.png", os.Getpid()))
		if err := os.WriteFile(f, ref, 0o600); err != nil {
			return err
		}
		defer os.Remove(f)
		img, err := os.Open(f)
		if err != nil {
			return err
		}
		defer img.Close()
		// N and ResponseFormat are set: CreateEditImage (image.go) writes
		// the fields n and response_format whatever they hold, so an edit
		// without them asks for n=0 and response_format "", which the
		// gateway refuses with 400.
		res, err := driveGoOpenAI(base, driveKeys.Image).CreateEditImage(ctx, goopenai.ImageEditRequest{
			Image: img, N: 1, ResponseFormat: goopenai.CreateImageResponseFormatB64JSON, Model: "gen-image-2", Prompt: "Add a small red boat on the horizon.", Size: "1024x1024"})
		if err != nil {
			return err
		}
		return imageOrErr(len(res.Data) > 0 && res.Data[0].B64JSON != "")
	}},
	{"langchaingo", "chat.basic", func(ctx context.Context, base string) error {
		llm, err := lcopenai.New(lcopenai.WithBaseURL(base+"/v1"), lcopenai.WithToken(driveKeys.Text), lcopenai.WithModel("gen-5.5"))
		if err != nil {
			return err
		}
		text, err := llms.GenerateFromSinglePrompt(ctx, llm, "Say something short about rivers.", llms.WithMaxTokens(256))
		return textOrErr(text, err)
	}},
	{"langchaingo", "chat.stream", func(ctx context.Context, base string) error {
		llm, err := lcopenai.New(lcopenai.WithBaseURL(base+"/v1"), lcopenai.WithToken(driveKeys.Text), lcopenai.WithModel("gen-5.5"))
		if err != nil {
			return err
		}
		return langchaingoStream(ctx, llm)
	}},
	{"langchaingo", "messages.basic", func(ctx context.Context, base string) error {
		llm, err := driveLangchaingoAnthropic(base)
		if err != nil {
			return err
		}
		text, err := llms.GenerateFromSinglePrompt(ctx, llm, "Say something short about rivers.", llms.WithMaxTokens(256))
		return textOrErr(text, err)
	}},
	{"langchaingo", "messages.stream", func(ctx context.Context, base string) error {
		llm, err := driveLangchaingoAnthropic(base)
		if err != nil {
			return err
		}
		return langchaingoStream(ctx, llm)
	}},
}

// langchaingoStream streams one answer: the text is what the streaming
// function was handed.
func langchaingoStream(ctx context.Context, llm llms.Model) error {
	var streamed strings.Builder
	_, err := llms.GenerateFromSinglePrompt(ctx, llm, "Say something short about rivers.", llms.WithMaxTokens(256),
		llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
			streamed.Write(chunk)
			return nil
		}))
	return textOrErr(streamed.String(), err)
}

func textOrErr(text string, err error) error {
	if err != nil {
		return err
	}
	if strings.TrimSpace(text) == "" {
		return errNoText
	}
	return nil
}

func imageOrErr(ok bool) error {
	if !ok {
		return errors.New("no error, but no image")
	}
	return nil
}

// driveOpenAI is openai-go with retries off, so a failure is one request.
func driveOpenAI(base, key string) *openai.Client {
	return judgeSDKClients{base: base, http: http.DefaultClient}.openai(key)
}

// driveAnthropic is anthropic-sdk-go sending Authorization: Bearer
// (WithAuthToken), as the spec's authentication is.
func driveAnthropic(base string) *anthropic.Client {
	return judgeSDKClients{base: base, http: http.DefaultClient}.anthropic(driveKeys.Messages)
}

func driveGoOpenAI(base, key string) *goopenai.Client {
	cfg := goopenai.DefaultConfig(key)
	cfg.BaseURL = base + "/v1"
	return goopenai.NewClientWithConfig(cfg)
}

func goOpenAIChat() goopenai.ChatCompletionRequest {
	//lint:ignore SA1019 max_tokens is the spec's member (4.2); MaxCompletionTokens sends another
	return goopenai.ChatCompletionRequest{Model: "gen-5.5", MaxTokens: 256,
		Messages: []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: "Say something short about rivers."}}}
}

// bearerDoer sends the key as Authorization: Bearer: langchaingo's
// Anthropic client has no option for it (the table's remedy for
// 5.1/bearer) and always sends x-api-key, which this removes.
type bearerDoer struct{ key string }

func (d bearerDoer) Do(r *http.Request) (*http.Response, error) {
	r.Header.Del("X-Api-Key")
	r.Header.Set("Authorization", "Bearer "+d.key)
	return http.DefaultClient.Do(r)
}

func driveLangchaingoAnthropic(base string) (*lcanthropic.LLM, error) {
	return lcanthropic.New(lcanthropic.WithBaseURL(base+"/v1"), lcanthropic.WithToken(driveKeys.Messages),
		lcanthropic.WithModel("msg-sonnet-5"), lcanthropic.WithHTTPClient(bearerDoer{driveKeys.Messages}))
}

// runDriveCall makes one call within driveTimeout.
func runDriveCall(c driveCall, base string) driveOutcome {
	ctx, cancel := context.WithTimeout(context.Background(), driveTimeout)
	defer cancel()
	out := driveOutcome{Client: c.client, Feature: c.feature, Outcome: driveWorks}
	if err := c.call(ctx, base); err != nil {
		out.Outcome, out.Detail = driveFails, err.Error()
		if ctx.Err() != nil {
			out.Outcome = driveHangs
		}
	}
	return out
}

// predictedOutcome is the table's prediction for a library × feature:
// "" where it makes none (UNKNOWN: a need's check was not reached).
func predictedOutcome(v results.Readiness) string {
	switch v {
	case results.ReadyNot:
		return driveFails
	case results.ReadyUnknown:
		return ""
	}
	return driveWorks
}

// drivePredictions runs the cases the table's needs name against the
// gateway and returns the readiness of each library × feature.
func drivePredictions(t *testing.T, table *catalog.Clients, srv *conformancetest.Server) map[[2]string]results.FeatureReadiness {
	t.Helper()
	var cases []string
	for _, c := range table.Entries {
		for _, u := range c.Uses {
			for _, n := range u.Needs {
				if !slices.Contains(cases, n.Case) {
					cases = append(cases, n.Case)
				}
			}
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := gw(t, "run", "--out", out, "--base-url", srv.BaseURL, "--case", strings.Join(cases, ","),
		// The libraries call with the spec's model ids and list no models:
		// a fault of the list leaves their calls alone.
		// The drive's calls name one model per interface: the prediction
		// is for them.
		"--offers", "!models.*", "--model", strings.Join(driveModels, ","),
		"--text-key", srv.Keys.Text, "--messages-key", srv.Keys.Messages, "--image-key", srv.Keys.Image, "--alt-key", srv.Keys.Alt)
	require.Contains(t, []int{exitOK, exitFailed}, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	f, err := os.Open(filepath.Join(out, "report.json"))
	require.NoError(t, err)
	defer f.Close()
	r, err := reportv1.ReadJSON(f)
	require.NoError(t, err)
	pred := map[[2]string]results.FeatureReadiness{}
	for _, row := range r.Readiness {
		for _, fr := range row.Features {
			pred[[2]string{row.Client, fr.Feature}] = fr
		}
	}
	return pred
}

// driveTally counts a drive's calls against the table's predictions.
type driveTally struct {
	rows                       []string
	calls, agreed, unpredicted int
	// confirmed are the needs a call failed on as the table predicts:
	// library, feature, the need's check and property.
	confirmed map[[4]string]bool
}

// hold holds the outcomes of one fault against the table's predictions:
// each disagreement fails the test naming the library, the fault and both
// outcomes.
func (d *driveTally) hold(t *testing.T, fault string, pred map[[2]string]results.FeatureReadiness, got []driveOutcome) {
	t.Helper()
	for _, o := range got {
		fr, ok := pred[[2]string{o.Client, o.Feature}]
		require.True(t, ok, "%s × %s is not in the table", o.Client, o.Feature)
		want := predictedOutcome(fr.Verdict)
		d.calls++
		mark := "agree"
		switch {
		case want == "":
			d.unpredicted++
			mark = "no prediction"
		case want == o.Outcome:
			d.agreed++
			for _, n := range fr.Needs {
				if o.Outcome == driveFails && n.State == results.NeedFails && !n.Driven {
					d.confirmed[[4]string{o.Client, o.Feature, n.Check, n.Property}] = true
				}
			}
		default:
			var failing []string
			for _, n := range fr.Needs {
				if n.State == results.NeedFails {
					failing = append(failing, n.Check+": "+n.Said)
				}
			}
			t.Errorf("%s × %s under fault %q: the table predicts the call %s (%s; %s), the drive saw it %s: %s",
				o.Client, o.Feature, fault, want, fr.Verdict, strings.Join(failing, "; "), o.Outcome, o.Detail)
			mark = "DISAGREE"
		}
		d.rows = append(d.rows, fmt.Sprintf("%-27s %-24s %-21s predicted %-9s observed %-5s %s", fault, o.Client, o.Feature, fr.Verdict, o.Outcome, mark))
	}
}

// drive runs calls against the reference gateway, clean and under each
// of driveFaults, and holds them against the table's predictions.
func drive(t *testing.T, what string, calls func(t *testing.T, srv *conformancetest.Server) []driveOutcome) {
	t.Helper()
	table, err := catalog.EmbeddedClients()
	require.NoError(t, err)
	start := time.Now()
	d := driveTally{confirmed: map[[4]string]bool{}}
	for _, fault := range append([]string{""}, driveFaults...) {
		cfg := refgateway.Config{}
		if fault != "" {
			cfg.Faults = []string{fault}
		}
		srv, err := conformancetest.Start(cfg, fixtures.FS)
		require.NoError(t, err)
		pred := drivePredictions(t, table, srv)
		got := calls(t, srv)
		srv.Close()
		if fault == "" {
			fault = "clean"
		}
		d.hold(t, fault, pred, got)
	}
	t.Logf("%s drive, clean and %d faults, %s: %d calls, %d as predicted, %d without a prediction (UNKNOWN)\n%s",
		what, len(driveFaults), time.Since(start).Round(time.Millisecond), d.calls, d.agreed, d.unpredicted, strings.Join(d.rows, "\n"))
	for n := range d.confirmed {
		t.Errorf("%s × %s: the drive confirmed the need %q (%s): mark its source driven in cases/clients/clients.yaml", n[0], n[1], n[3], n[2])
	}
}

// TestDriveFaultsDiffer: driveFaults are exactly the faults under which
// the table's readiness differs from the clean run's. It runs the needs'
// cases under every fault of the table (minutes, not make test's), so
// only with GWCONFORM_DRIVE_FAULTS=all; after a change to the table or the
// fault table, it says which faults to add to driveFaults or drop.
func TestDriveFaultsDiffer(t *testing.T) {
	if os.Getenv("GWCONFORM_DRIVE_FAULTS") != "all" {
		t.Skip("GWCONFORM_DRIVE_FAULTS=all runs the needs' cases under every fault")
	}
	clearEnv(t)
	table, err := catalog.EmbeddedClients()
	require.NoError(t, err)
	verdicts := func(faults ...string) map[[2]string]results.Readiness {
		srv, err := conformancetest.Start(refgateway.Config{Faults: faults}, fixtures.FS)
		require.NoError(t, err)
		defer srv.Close()
		out := map[[2]string]results.Readiness{}
		for k, fr := range drivePredictions(t, table, srv) {
			out[k] = fr.Verdict
		}
		return out
	}
	clean := verdicts()
	var differ []string
	for _, f := range refgateway.Faults() {
		if !maps.Equal(verdicts(f.Name), clean) {
			differ = append(differ, f.Name)
		}
	}
	assert.ElementsMatch(t, driveFaults, differ, "driveFaults against the faults whose readiness differs from the clean run's")
}

// TestDriveGoLibraries: the Go libraries do, clean and under each fault
// that breaks a need of the table, what the table predicts.
func TestDriveGoLibraries(t *testing.T) {
	skipDriveShort(t)
	clearEnv(t)
	drive(t, "Go", func(t *testing.T, srv *conformancetest.Server) []driveOutcome {
		var got []driveOutcome
		for _, c := range goDriveCalls {
			got = append(got, runDriveCall(c, srv.BaseURL))
		}
		return got
	})
}

// skipDriveShort leaves a drive to make test's pass without the race
// detector (E2E in the Makefile): a run of the catalog's needs per fault
// takes five times longer under it, for nothing concurrent.
func skipDriveShort(t *testing.T) {
	if testing.Short() {
		t.Skip("the client drive runs without -short (make test's second pass)")
	}
}

// jsDriveDir is the JS drive's package: package.json, its lockfile and
// drive.mjs.
const jsDriveDir = "testdata/jsdrive"

// TestDriveJSLibraries: the JS libraries (openai-node, @anthropic-ai/sdk,
// the Vercel AI SDK, LangChain JS) do, clean and under each fault that
// breaks a need of the table, what the table predicts. They are installed
// from the lockfile with npm ci into the user's cache, outside the
// repository, once per lockfile; without Node and npm the drive is
// skipped, and says so.
func TestDriveJSLibraries(t *testing.T) {
	skipDriveShort(t)
	node, errNode := exec.LookPath("node")
	npm, errNPM := exec.LookPath("npm")
	if errNode != nil || errNPM != nil {
		t.Skip("the JS drive is skipped: node and npm are needed (Debian: apt-get install nodejs npm; .ci/run installs them)")
	}
	src, err := filepath.Abs(jsDriveDir)
	require.NoError(t, err)
	clearEnv(t) // it leaves the package's directory
	dir := jsDriveInstall(t, npm, src)
	ref, err := fs.ReadFile(fixtures.FS, fixtures.RefA)
	require.NoError(t, err)
	png := filepath.Join(t.TempDir(), "ref-a-1024.png")
	require.NoError(t, os.WriteFile(png, ref, 0o600))
	drive(t, "JS", func(t *testing.T, srv *conformancetest.Server) []driveOutcome {
		// Each call is bounded by driveTimeout inside the script; this
		// bounds the whole script beyond the sum of its calls.
		ctx, cancel := context.WithTimeout(context.Background(), 20*driveTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, "drive.mjs")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GW_BASE_URL="+srv.BaseURL, "GW_TEXT_KEY="+srv.Keys.Text,
			"GW_MESSAGES_KEY="+srv.Keys.Messages, "GW_IMAGE_KEY="+srv.Keys.Image, "GW_REF_PNG="+png,
			fmt.Sprintf("GW_CALL_TIMEOUT_MS=%d", driveTimeout.Milliseconds()))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, "node drive.mjs: %s", stderr.String())
		var got []driveOutcome
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var o driveOutcome
			require.NoError(t, json.Unmarshal([]byte(line), &o), "a line of drive.mjs: %s", line)
			got = append(got, o)
		}
		return got
	})
}

// jsDriveInstall installs the JS drive's lockfile with npm ci, once per
// lockfile, into the user's cache, from src (the package's directory),
// and returns the directory holding the
// packages and drive.mjs.
func jsDriveInstall(t *testing.T, npm, src string) string {
	t.Helper()
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	require.NoError(t, err)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256(lock)
	root := filepath.Join(cache, "gwconform", "jsdrive")
	dir := filepath.Join(root, hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		require.NoError(t, os.MkdirAll(root, 0o755))
		tmp, err := os.MkdirTemp(root, "install-")
		require.NoError(t, err)
		defer os.RemoveAll(tmp)
		for _, f := range []string{"package.json", "package-lock.json"} {
			data, err := os.ReadFile(filepath.Join(src, f))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(tmp, f), data, 0o644))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--cache", filepath.Join(root, "npm-cache"))
		cmd.Dir = tmp
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "npm ci: %s", out)
		// Another test process may have installed it meanwhile: either
		// copy will do.
		if err := os.Rename(tmp, dir); err != nil {
			_, statErr := os.Stat(filepath.Join(dir, "node_modules"))
			require.NoError(t, statErr, "installing the JS drive: %v", err)
		}
	}
	script, err := os.ReadFile(filepath.Join(src, "drive.mjs"))
	require.NoError(t, err)
	// drive.mjs resolves its imports beside itself, so it runs from dir;
	// a fresh copy per run keeps it the repository's.
	f, err := os.CreateTemp(dir, "drive-*.mjs")
	require.NoError(t, err)
	_, err = f.Write(script)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, os.Rename(f.Name(), filepath.Join(dir, "drive.mjs")))
	return dir
}
