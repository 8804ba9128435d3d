package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/fixtures"
)

// The official Go SDKs, driven through serve --judge as an application
// would drive them, send requests the judge finds nothing in: every
// client-side result passes with no reason, serve exits 0, and there is
// exactly one client result per request the SDKs made. The rows that break
// a rule on purpose show that the judge can find something, and that it
// names the row broken.

// sdkRow is the client row the judge names an SDK of go.mod by: the
// table of known clients' id and the version the SDK sends.
func sdkRow(t *testing.T, id string) string {
	t.Helper()
	module := map[string]string{productOpenAI: "github.com/openai/openai-go/v3", productAnthropic: "github.com/anthropics/anthropic-sdk-go"}[id]
	gomod, err := os.ReadFile("../../go.mod")
	require.NoError(t, err)
	for _, line := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == module {
			return "client: " + id + " " + strings.TrimPrefix(f[1], "v")
		}
	}
	t.Fatalf("%s is not in go.mod", module)
	return ""
}

// judgeSDKCall is one SDK call of the drive.
type judgeSDKCall struct {
	name string
	// product is the client row the judge files the request under (the
	// SDK's User-Agent product token, observe.ClientRow).
	product string
	// call makes the call and checks what the SDK hands back; it returns
	// the SDK's error for a call the gateway may refuse.
	call func(t *testing.T, ctx context.Context, c judgeSDKClients) error
	// breaks is the spec row the request breaks on purpose ("" for a
	// request the judge must find nothing in); refused says the gateway
	// refuses that request, so the SDK returns an API error of a 4xx.
	breaks  string
	refused bool
}

const (
	productOpenAI    = "openai-go"
	productAnthropic = "anthropic-sdk-go"
)

var judgeSDKCalls = []judgeSDKCall{
	{name: "openai chat json", product: productOpenAI, call: func(t *testing.T, ctx context.Context, c judgeSDKClients) error {
		res, err := c.openai(sdkJudgeKeys.Text).Chat.Completions.New(ctx, judgeChatParams())
		require.NoError(t, err)
		require.Len(t, res.Choices, 1)
		assert.NotEmpty(t, strings.TrimSpace(res.Choices[0].Message.Content))
		return nil
	}},
	{name: "openai chat stream", product: productOpenAI, call: func(t *testing.T, ctx context.Context, c judgeSDKClients) error {
		stream := c.openai(sdkJudgeKeys.Text).Chat.Completions.NewStreaming(ctx, judgeChatParams())
		defer stream.Close()
		var acc openai.ChatCompletionAccumulator
		for stream.Next() {
			acc.AddChunk(stream.Current())
		}
		require.NoError(t, stream.Err())
		require.Len(t, acc.Choices, 1)
		assert.NotEmpty(t, strings.TrimSpace(acc.Choices[0].Message.Content))
		return nil
	}},
	{name: "anthropic messages json", product: productAnthropic, call: func(t *testing.T, ctx context.Context, c judgeSDKClients) error {
		m, err := c.anthropic(sdkJudgeKeys.Messages).Messages.New(ctx, judgeMessageParams("msg-sonnet-5", 256))
		require.NoError(t, err)
		assert.Equal(t, anthropic.StopReasonEndTurn, m.StopReason)
		return nil
	}},
	{name: "anthropic messages stream", product: productAnthropic, call: func(t *testing.T, ctx context.Context, c judgeSDKClients) error {
		judgeStreamMessage(t, ctx, c.anthropic(sdkJudgeKeys.Messages), judgeMessageParams("msg-sonnet-5", 256))
		return nil
	}},
	// The alternative text model: its own key kind (5.3) and max_tokens,
	// which it requires (4.3), 1024 as verified (8).
	{name: "anthropic alt-flash json", product: productAnthropic, call: func(t *testing.T, ctx context.Context, c judgeSDKClients) error {
		m, err := c.anthropic(sdkJudgeKeys.Alt).Messages.New(ctx, judgeMessageParams("alt-flash", 1024))
		require.NoError(t, err)
		assert.Equal(t, "alt-flash", string(m.Model))
		return nil
	}},
	{name: "anthropic alt-flash stream", product: productAnthropic, call: func(t *testing.T, ctx context.Context, c judgeSDKClients) error {
		judgeStreamMessage(t, ctx, c.anthropic(sdkJudgeKeys.Alt), judgeMessageParams("alt-flash", 1024))
		return nil
	}},
	{name: "openai image generation json", product: productOpenAI, call: func(t *testing.T, ctx context.Context, c judgeSDKClients) error {
		res, err := c.openai(sdkJudgeKeys.Image).Images.Generate(ctx, openai.ImageGenerateParams{
			Model: "gen-image-2", Prompt: "A lighthouse on a rocky coast at dusk.", Size: "1024x1024", OutputFormat: "png",
		})
		require.NoError(t, err)
		require.Len(t, res.Data, 1)
		assert.NotEmpty(t, res.Data[0].B64JSON)
		return nil
	}},
	{name: "openai image generation stream", product: productOpenAI, call: func(t *testing.T, ctx context.Context, c judgeSDKClients) error {
		stream := c.openai(sdkJudgeKeys.Image).Images.GenerateStreaming(ctx, openai.ImageGenerateParams{
			Model: "gen-image-2.5-flare", Prompt: "A red kite over green hills.", Size: "1024x1024", PartialImages: openai.Int(2),
		})
		defer stream.Close()
		var completed int
		for stream.Next() {
			if e, ok := stream.Current().AsAny().(openai.ImageGenCompletedEvent); ok {
				assert.NotEmpty(t, e.B64JSON)
				completed++
			}
		}
		require.NoError(t, stream.Err())
		assert.Equal(t, 1, completed, "completed events")
		return nil
	}},
	// openai-go sends an edit as a multipart form, the one reference image
	// as the file field image.
	{name: "openai image edit multipart", product: productOpenAI, call: func(t *testing.T, ctx context.Context, c judgeSDKClients) error {
		res, err := c.openai(sdkJudgeKeys.Image).Images.Edit(ctx, judgeEditParams(t))
		require.NoError(t, err)
		require.Len(t, res.Data, 1)
		assert.NotEmpty(t, res.Data[0].B64JSON)
		return nil
	}},
	{name: "openai image edit stream", product: productOpenAI, call: func(t *testing.T, ctx context.Context, c judgeSDKClients) error {
		p := judgeEditParams(t)
		p.PartialImages = openai.Int(1)
		stream := c.openai(sdkJudgeKeys.Image).Images.EditStreaming(ctx, p)
		defer stream.Close()
		var completed int
		for stream.Next() {
			if e, ok := stream.Current().AsAny().(openai.ImageEditCompletedEvent); ok {
				assert.NotEmpty(t, e.B64JSON)
				completed++
			}
		}
		require.NoError(t, stream.Err())
		assert.Equal(t, 1, completed, "completed events")
		return nil
	}},

	// Broken on purpose: each must be found, naming the row it breaks.
	//
	// An edit without prompt is not among them: openai-go cannot omit
	// prompt (a required string of ImageEditParams, sent as an empty
	// multipart field when left ""). An empty prompt is given, so it
	// breaks no row (4.5/prompt-omitted); the judge notes it, since no
	// verified row sends one and the reference gateway refuses it with
	// 400 "prompt is required" (observe's TestNotes).

	// The Anthropic SDK's own default: the key as x-api-key, not as the
	// spec's Authorization: Bearer.
	{name: "anthropic x-api-key", product: productAnthropic, breaks: "5.1/bearer", call: func(t *testing.T, ctx context.Context, c judgeSDKClients) error {
		_, err := c.anthropicAPIKey(sdkJudgeKeys.Messages).Messages.New(ctx, judgeMessageParams("msg-sonnet-5", 256))
		return err
	}},
	// partial_images is for a stream only (4.4): openai-go sends it in a
	// JSON generation without stream when asked to.
	{name: "openai generation partial_images without stream", product: productOpenAI, breaks: "4.4/partial-images", call: func(t *testing.T, ctx context.Context, c judgeSDKClients) error {
		_, err := c.openai(sdkJudgeKeys.Image).Images.Generate(ctx, openai.ImageGenerateParams{
			Model: "gen-image-2", Prompt: "A lighthouse on a rocky coast at dusk.", Size: "1024x1024", PartialImages: openai.Int(2),
		})
		return err
	}},
	{name: "openai generation with the text key", product: productOpenAI, breaks: "5.2/image-permission", refused: true, call: func(t *testing.T, ctx context.Context, c judgeSDKClients) error {
		_, err := c.openai(sdkJudgeKeys.Text).Images.Generate(ctx, openai.ImageGenerateParams{
			Model: "gen-image-2", Prompt: "A lighthouse on a rocky coast at dusk.", Size: "1024x1024",
		})
		return err
	}},
}

var sdkJudgeKeys = refgateway.DefaultKeys()

func judgeChatParams() openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:     "gen-5.5",
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say something short about rivers.")},
		MaxTokens: openai.Int(256),
	}
}

func judgeMessageParams(model string, maxTokens int64) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model: anthropic.Model(model), MaxTokens: maxTokens,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Say something short about rivers."))},
	}
}

// judgeEditParams is an edit with a 2.5 model and one reference image.
func judgeEditParams(t *testing.T) openai.ImageEditParams {
	ref, err := fs.ReadFile(fixtures.FS, fixtures.RefA)
	require.NoError(t, err)
	return openai.ImageEditParams{
		Model:  "gen-image-2.5-flare",
		Image:  openai.ImageEditParamsImageUnion{OfFile: openai.File(bytes.NewReader(ref), "ref-a-1024.png", "image/png")},
		Prompt: "Add a small red boat on the horizon.", Size: "1024x1024",
	}
}

func judgeStreamMessage(t *testing.T, ctx context.Context, client *anthropic.Client, p anthropic.MessageNewParams) {
	t.Helper()
	stream := client.Messages.NewStreaming(ctx, p)
	defer stream.Close()
	var m anthropic.Message
	for stream.Next() {
		require.NoError(t, m.Accumulate(stream.Current()))
	}
	require.NoError(t, stream.Err())
	assert.Equal(t, string(p.Model), string(m.Model))
	assert.NotEmpty(t, m.StopReason)
}

// judgeSDKClients makes the SDK clients of one session: every request
// goes through one counting transport to the judging relay.
type judgeSDKClients struct {
	base     string
	http     *http.Client
	requests *atomic.Int64
}

// countingTransport counts the HTTP requests the SDKs send.
type countingTransport struct {
	n    *atomic.Int64
	next http.RoundTripper
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

// openai is an openai-go client: base URL with /v1, the key sent as
// Authorization: Bearer (the SDK's only form), retries off so each call is
// exactly one request.
func (c judgeSDKClients) openai(key string) *openai.Client {
	cl := openai.NewClient(option.WithBaseURL(c.base+"/v1/"), option.WithAPIKey(key), option.WithMaxRetries(0), option.WithHTTPClient(c.http))
	return &cl
}

// anthropic is an anthropic-sdk-go client sending the key as the spec
// asks (5.1: "Every request carries the header Authorization: Bearer
// <API_KEY>"): WithAuthToken sends Authorization: Bearer, where the SDK's
// default, WithAPIKey, sends x-api-key. WithoutEnvironmentDefaults keeps
// an ANTHROPIC_API_KEY in the environment from adding an x-api-key.
// Retries are off so each call is exactly one request.
func (c judgeSDKClients) anthropic(key string) *anthropic.Client {
	cl := anthropic.NewClient(aoption.WithoutEnvironmentDefaults(), aoption.WithBaseURL(c.base+"/"), aoption.WithAuthToken(key),
		aoption.WithMaxRetries(0), aoption.WithHTTPClient(c.http))
	return &cl
}

// anthropicAPIKey is an anthropic-sdk-go client with the SDK's default
// authentication, x-api-key: what 5.1 does not allow.
func (c judgeSDKClients) anthropicAPIKey(key string) *anthropic.Client {
	cl := anthropic.NewClient(aoption.WithoutEnvironmentDefaults(), aoption.WithBaseURL(c.base+"/"), aoption.WithAPIKey(key),
		aoption.WithMaxRetries(0), aoption.WithHTTPClient(c.http))
	return &cl
}

// judgeSession is one serve --judge, in-process, answering as the
// reference gateway and judging each client's request.
type judgeSession struct {
	clients judgeSDKClients
	out     string
	stop    func() int
	stdout  *syncBuffer
}

func startJudgeSession(t *testing.T) *judgeSession {
	t.Helper()
	s := &judgeSession{out: t.TempDir()}
	var base string
	base, s.stop, s.stdout = startServeCode(t, "--judge", "--out", s.out)
	s.clients = judgeSDKClients{base: base, requests: &atomic.Int64{}}
	s.clients.http = &http.Client{Transport: countingTransport{n: s.clients.requests, next: http.DefaultTransport.(*http.Transport).Clone()}}
	return s
}

// end stops serve (its SIGINT) and returns its exit code and the client
// side's results.
func (s *judgeSession) end(t *testing.T) (code int, client []results.Result) {
	t.Helper()
	code = s.stop()
	rs, err := results.ReadFile(filepath.Join(s.out, results.FileName))
	require.NoError(t, err)
	for _, r := range rs {
		if r.Side == results.SideClient {
			assert.True(t, r.Observed, "%s: observed", r.Case)
			client = append(client, r)
		}
	}
	assert.FileExists(t, filepath.Join(s.out, "report.json"))
	return code, client
}

// drive makes one call and checks it was exactly one request.
func (s *judgeSession) drive(t *testing.T, tc judgeSDKCall) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	before := s.clients.requests.Load()
	err := tc.call(t, ctx, s.clients)
	assert.Equal(t, int64(1), s.clients.requests.Load()-before, "%s: requests made by the call", tc.name)
	return err
}

func TestJudgeOfficialSDKs(t *testing.T) {
	s := startJudgeSession(t)
	want := map[string]int{} // requests per client row
	calls := 0
	for _, tc := range judgeSDKCalls {
		if tc.breaks != "" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, s.drive(t, tc))
		})
		want[sdkRow(t, tc.product)]++
		calls++
	}
	requests := int(s.clients.requests.Load())
	code, client := s.end(t)

	t.Logf("calls %d, requests %d, client results %d", calls, requests, len(client))
	assert.Equal(t, calls, requests, "retries are off: one request per call")
	assert.Equal(t, exitOK, code, "serve --judge exit code; stdout:\n%s", s.stdout.String())
	assert.Len(t, client, requests, "one client result per request the SDKs made")
	got := map[string]int{}
	findings := 0
	for _, r := range client {
		got[r.Model]++
		findings += len(r.Reasons)
		assert.Equal(t, vocab.StatusPass, r.Status, "%s %s %s (%s): %+v", r.Case, r.Request.Method, r.Request.Path, r.Model, r.Reasons)
		assert.Empty(t, r.Reasons, "%s %s %s (%s)", r.Case, r.Request.Method, r.Request.Path, r.Model)
		// Each request is one a verified row sends: the judge notes
		// nothing beyond the verified rows either.
		assert.Empty(t, r.Notes, "%s %s %s (%s)", r.Case, r.Request.Method, r.Request.Path, r.Model)
	}
	assert.Equal(t, want, got, "client results per SDK")
	t.Logf("findings %d", findings)
}

// Each deliberately broken request, alone in a session of its own: the
// judge fails it, every reason naming the row it breaks, and serve exits
// 1.
func TestJudgeBrokenSDKRequests(t *testing.T) {
	for _, tc := range judgeSDKCalls {
		if tc.breaks == "" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			s := startJudgeSession(t)
			err := s.drive(t, tc)
			if tc.refused {
				var oe *openai.Error
				var ae *anthropic.Error
				switch {
				case errors.As(err, &oe):
					assert.True(t, oe.StatusCode >= 400 && oe.StatusCode < 500, "a 4xx refusal: %v", err)
				case errors.As(err, &ae):
					assert.True(t, ae.StatusCode >= 400 && ae.StatusCode < 500, "a 4xx refusal: %v", err)
				default:
					t.Errorf("want the SDK's API error of a refusal, got %v", err)
				}
			} else {
				assert.NoError(t, err, "the gateway serves the request")
			}
			code, client := s.end(t)
			assert.Equal(t, exitFailed, code, "serve --judge exit code; stdout:\n%s", s.stdout.String())
			require.Len(t, client, 1, "one client result for the one request")
			r := client[0]
			assert.Equal(t, sdkRow(t, tc.product), r.Model)
			assert.Equal(t, vocab.StatusFail, r.Status)
			require.NotEmpty(t, r.Reasons)
			for _, reason := range r.Reasons {
				assert.Equal(t, "client", reason.Check)
				assert.Contains(t, reason.Message, "spec "+tc.breaks+":", "the reason names the row")
			}
			if tc.breaks == "5.1/bearer" {
				assert.Contains(t, r.Reasons[0].Message, "anthropic-sdk-go's remedy: option.WithAuthToken", "a known library's own remedy")
			}
			assert.Contains(t, s.stdout.String(), "FAIL "+r.Case, "the console says what was found")
			t.Logf("finding: %s at %s: expected %s, got %s", r.Reasons[0].Message, r.Reasons[0].Where, r.Reasons[0].Expected, r.Reasons[0].Actual)
		})
	}
}
