package refgateway_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/fixtures"
)

// Acceptance point 2 of the reference gateway: the official SDKs
// (github.com/openai/openai-go/v3, github.com/anthropics/anthropic-sdk-go)
// talk to it as to a real gateway. Every image is decoded and checked.

// sdkCtx bounds one SDK test; a stuck stream fails instead of hanging.
func sdkCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestSDKModelsList(t *testing.T) {
	t.Parallel()
	srv := sdkServer(t)
	cases := []struct {
		kind, key string
		want      []string
	}{
		{"text", sdkKeys.Text, []string{"gen-5.5", "gen-5.6-luna", "gen-5.6-sol", "gen-5.6-terra", "gen-6-astra"}},
		{"messages", sdkKeys.Messages, []string{"msg-sonnet-5", "msg-opus-5", "msg-haiku-4-5-20251001"}},
		{"image", sdkKeys.Image, []string{"gen-image-2", "gen-image-2.5-flare", "gen-image-2.5-sunburst"}},
		{"alt", sdkKeys.Alt, []string{"alt-flash", "alt-v4-pro"}},
	}
	for _, tc := range cases {
		t.Run("openai/"+tc.kind, func(t *testing.T) {
			t.Parallel()
			ctx := sdkCtx(t)
			client := newOpenAI(srv, tc.key)

			page, err := client.Models.List(ctx)
			require.NoError(t, err)
			assert.Equal(t, "list", page.Object)
			var ids []string
			for _, m := range page.Data {
				ids = append(ids, m.ID)
				assert.Equal(t, "model", string(m.Object), "object of %s", m.ID)
				assert.NotEmpty(t, m.OwnedBy, "owned_by of %s", m.ID)
				assertStrings(t, map[string]jsonField{"data[].id": m.JSON.ID, "data[].object": m.JSON.Object, "data[].owned_by": m.JSON.OwnedBy})
			}
			assert.ElementsMatch(t, tc.want, ids)

			var auto []string
			iter := client.Models.ListAutoPaging(ctx)
			for iter.Next() {
				auto = append(auto, iter.Current().ID)
			}
			require.NoError(t, iter.Err())
			assert.ElementsMatch(t, tc.want, auto)
		})
		t.Run("anthropic/"+tc.kind, func(t *testing.T) {
			t.Parallel()
			ctx := sdkCtx(t)
			// The spec (5.1) authenticates every request with Authorization:
			// Bearer; the Anthropic SDK sends that with WithAuthToken.
			client := newAnthropic(srv, tc.key, aoption.WithAuthToken(tc.key), aoption.WithHeaderDel("X-Api-Key"))
			var ids []string
			iter := client.Models.ListAutoPaging(ctx, anthropic.ModelListParams{})
			for iter.Next() {
				ids = append(ids, iter.Current().ID)
				assertStrings(t, map[string]jsonField{"data[].id": iter.Current().JSON.ID})
			}
			require.NoError(t, iter.Err())
			assert.ElementsMatch(t, tc.want, ids)

			page, err := client.Models.List(ctx, anthropic.ModelListParams{})
			require.NoError(t, err)
			assert.False(t, page.HasMore)
			assert.Len(t, page.Data, len(tc.want))
		})
	}

	t.Run("openai/bad key is a 401 *openai.Error", func(t *testing.T) {
		t.Parallel()
		client := newOpenAI(srv, "sk-wrong")
		_, err := client.Models.List(sdkCtx(t))
		var apiErr *openai.Error
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusUnauthorized, apiErr.StatusCode)
		assert.NotEmpty(t, apiErr.Message)
	})
}

func TestSDKChat(t *testing.T) {
	t.Parallel()
	srv := sdkServer(t)
	client := newOpenAI(srv, sdkKeys.Text)
	prompt := "Say something short about rivers."

	t.Run("json", func(t *testing.T) {
		t.Parallel()
		c, err := client.Chat.Completions.New(sdkCtx(t), openai.ChatCompletionNewParams{
			Model:       "gen-5.5",
			Messages:    []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
			Temperature: openai.Float(0.2),
			MaxTokens:   openai.Int(256),
		})
		require.NoError(t, err)
		assert.Equal(t, "chat.completion", string(c.Object))
		assert.Equal(t, "gen-5.5", c.Model)
		assert.NotEmpty(t, c.ID)
		require.Len(t, c.Choices, 1)
		ch := c.Choices[0]
		assert.Zero(t, ch.Index)
		assert.Equal(t, "assistant", string(ch.Message.Role))
		assert.NotEmpty(t, strings.TrimSpace(ch.Message.Content))
		assert.Equal(t, "stop", ch.FinishReason)
		assertStrings(t, map[string]jsonField{
			"object": c.JSON.Object, "model": c.JSON.Model,
			"choices[].finish_reason": ch.JSON.FinishReason, "choices[].message.role": ch.Message.JSON.Role,
			"choices[].message.content": ch.Message.JSON.Content,
		})
		assertInts(t, map[string]jsonField{"choices[].index": ch.JSON.Index, "usage.completion_tokens": c.Usage.JSON.CompletionTokens})
		assert.Positive(t, c.Usage.CompletionTokens)
		assert.Equal(t, c.Usage.PromptTokens+c.Usage.CompletionTokens, c.Usage.TotalTokens)
	})

	t.Run("json max_tokens gives finish_reason length", func(t *testing.T) {
		t.Parallel()
		c, err := client.Chat.Completions.New(sdkCtx(t), openai.ChatCompletionNewParams{
			Model:     "gen-5.5",
			Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Write 60 words about rivers.")},
			MaxTokens: openai.Int(5),
		})
		require.NoError(t, err)
		require.Len(t, c.Choices, 1)
		assert.Equal(t, "length", c.Choices[0].FinishReason)
		assert.NotEmpty(t, c.Choices[0].Message.Content)
		assert.LessOrEqual(t, words(c.Choices[0].Message.Content), 5)
		assert.LessOrEqual(t, c.Usage.CompletionTokens, int64(5))
	})

	for _, tc := range []struct {
		name       string
		prompt     string
		maxTokens  int64
		wantFinish string
	}{
		{"stream", prompt, 256, "stop"},
		{"stream max_tokens gives finish_reason length", "Write 60 words about rivers.", 5, "length"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var hr *http.Response
			stream := client.Chat.Completions.NewStreaming(sdkCtx(t), openai.ChatCompletionNewParams{
				Model:     "gen-5.5",
				Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage(tc.prompt)},
				MaxTokens: openai.Int(tc.maxTokens),
			}, option.WithResponseInto(&hr))
			defer stream.Close()

			var acc openai.ChatCompletionAccumulator
			var deltas strings.Builder
			var chunks int
			var role, finish string
			for stream.Next() {
				chunk := stream.Current()
				chunks++
				require.True(t, acc.AddChunk(chunk), "accumulator refused chunk %d: %s", chunks, chunk.RawJSON())
				assert.Equal(t, "chat.completion.chunk", string(chunk.Object))
				for _, c := range chunk.Choices {
					assertInts(t, map[string]jsonField{"choices[].index": c.JSON.Index})
					assertPresent(t, map[string]jsonField{"choices[].delta": c.JSON.Delta})
					if c.Delta.Role != "" && role == "" {
						role = c.Delta.Role
						assert.Equal(t, 1, chunks, "role arrives after the first chunk")
					}
					deltas.WriteString(c.Delta.Content)
					if c.FinishReason != "" {
						finish = c.FinishReason
					}
				}
			}
			require.NoError(t, stream.Err())
			require.NotNil(t, hr)
			assert.True(t, strings.HasPrefix(hr.Header.Get("Content-Type"), "text/event-stream"), "Content-Type %q", hr.Header.Get("Content-Type"))
			assert.Greater(t, chunks, 1)
			assert.Equal(t, "assistant", role, "role in the first delta")
			assert.Equal(t, tc.wantFinish, finish)

			require.Len(t, acc.Choices, 1)
			got := acc.Choices[0].Message.Content
			assert.NotEmpty(t, strings.TrimSpace(got))
			assert.Equal(t, deltas.String(), got, "accumulated text differs from the concatenated deltas")
			assert.Equal(t, tc.wantFinish, acc.Choices[0].FinishReason)
			assert.Equal(t, "gen-5.5", acc.Model)
			if tc.wantFinish == "length" {
				assert.LessOrEqual(t, words(got), int(tc.maxTokens))
			}
		})
	}

	t.Run("missing model is a 400 *openai.Error", func(t *testing.T) {
		t.Parallel()
		_, err := client.Chat.Completions.New(sdkCtx(t), openai.ChatCompletionNewParams{
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
		})
		var apiErr *openai.Error
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
		assert.NotEmpty(t, apiErr.Message)
	})
}

var msgModels = []string{"msg-sonnet-5", "msg-opus-5", "msg-haiku-4-5-20251001"}

func TestSDKMessages(t *testing.T) {
	t.Parallel()
	srv := sdkServer(t)
	// Both authentication forms an Anthropic SDK user may choose: x-api-key
	// (the SDK default) and Authorization: Bearer (the spec's form, 5.1).
	clients := map[string]anthropic.Client{
		"x-api-key": newAnthropic(srv, sdkKeys.Messages),
		"bearer":    newAnthropic(srv, sdkKeys.Messages, aoption.WithAuthToken(sdkKeys.Messages), aoption.WithHeaderDel("X-Api-Key")),
	}
	user := func(s string) []anthropic.MessageParam {
		return []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(s))}
	}
	const short = "Say something short about rivers."
	const long = "Write 60 words about rivers."

	for _, model := range msgModels {
		for auth, client := range clients {
			t.Run(model+"/"+auth+"/json", func(t *testing.T) {
				t.Parallel()
				m, err := client.Messages.New(sdkCtx(t), anthropic.MessageNewParams{
					Model: anthropic.Model(model), MaxTokens: 256, Messages: user(short),
				})
				require.NoError(t, err)
				checkMessage(t, m, model, anthropic.StopReasonEndTurn)
				assertStrings(t, map[string]jsonField{"stop_reason": m.JSON.StopReason})
				assert.Less(t, m.Usage.OutputTokens, int64(256))
			})
			t.Run(model+"/"+auth+"/stream", func(t *testing.T) {
				t.Parallel()
				m := streamMessage(t, client, anthropic.MessageNewParams{
					Model: anthropic.Model(model), MaxTokens: 256, Messages: user(short),
				})
				checkMessage(t, m, model, anthropic.StopReasonEndTurn)
			})
		}
		client := clients["x-api-key"]
		t.Run(model+"/json max_tokens", func(t *testing.T) {
			t.Parallel()
			m, err := client.Messages.New(sdkCtx(t), anthropic.MessageNewParams{
				Model: anthropic.Model(model), MaxTokens: 5, Messages: user(long),
			})
			require.NoError(t, err)
			checkMessage(t, m, model, anthropic.StopReasonMaxTokens)
			assert.LessOrEqual(t, words(textOf(m)), 5)
			assert.LessOrEqual(t, m.Usage.OutputTokens, int64(5))
		})
		t.Run(model+"/stream max_tokens", func(t *testing.T) {
			t.Parallel()
			m := streamMessage(t, client, anthropic.MessageNewParams{
				Model: anthropic.Model(model), MaxTokens: 5, Messages: user(long),
			})
			checkMessage(t, m, model, anthropic.StopReasonMaxTokens)
			assert.LessOrEqual(t, words(textOf(m)), 5)
			assert.LessOrEqual(t, m.Usage.OutputTokens, int64(5))
		})
	}
}

// checkMessage checks a message (2.4) as the SDK returned or accumulated it.
// The field records checked are those of message_start for an accumulated
// message (Message.Accumulate updates the values, not the records); the
// stream's later events are checked in streamMessage.
func checkMessage(t *testing.T, m *anthropic.Message, model string, stop anthropic.StopReason) {
	t.Helper()
	assert.Equal(t, "message", string(m.Type))
	assert.Equal(t, "assistant", string(m.Role))
	assert.Equal(t, model, string(m.Model))
	assert.True(t, strings.HasPrefix(m.ID, "msg_"), "id %q", m.ID)
	require.NotEmpty(t, m.Content)
	for _, b := range m.Content {
		assert.Equal(t, "text", b.Type)
	}
	assert.NotEmpty(t, strings.TrimSpace(textOf(m)))
	assert.Equal(t, stop, m.StopReason)
	assert.Positive(t, m.Usage.InputTokens)
	assert.Positive(t, m.Usage.OutputTokens)
	assertStrings(t, map[string]jsonField{"type": m.JSON.Type, "role": m.JSON.Role, "model": m.JSON.Model})
	assertPresent(t, map[string]jsonField{"content": m.JSON.Content})
	assertInts(t, map[string]jsonField{
		"usage.input_tokens": m.Usage.JSON.InputTokens, "usage.output_tokens": m.Usage.JSON.OutputTokens,
		"usage.cache_creation_input_tokens": m.Usage.JSON.CacheCreationInputTokens,
		"usage.cache_read_input_tokens":     m.Usage.JSON.CacheReadInputTokens,
	})
}

// streamMessage streams a message, accumulating it with Message.Accumulate,
// and checks the event order (6.3) and that the accumulated text is the
// concatenation of the text deltas.
func streamMessage(t *testing.T, client anthropic.Client, p anthropic.MessageNewParams) *anthropic.Message {
	t.Helper()
	var hr *http.Response
	stream := client.Messages.NewStreaming(sdkCtx(t), p, aoption.WithResponseInto(&hr))
	defer stream.Close()
	var m anthropic.Message
	var deltas strings.Builder
	var kinds []string
	for stream.Next() {
		ev := stream.Current()
		require.NoError(t, m.Accumulate(ev), "accumulate %s", ev.Type)
		kinds = append(kinds, ev.Type)
		switch e := ev.AsAny().(type) {
		case anthropic.ContentBlockDeltaEvent:
			assertInts(t, map[string]jsonField{"index": e.JSON.Index})
			assertStrings(t, map[string]jsonField{"delta.type": e.Delta.JSON.Type})
			if td, ok := e.Delta.AsAny().(anthropic.TextDelta); ok {
				assertStrings(t, map[string]jsonField{"delta.text": td.JSON.Text})
				deltas.WriteString(td.Text)
			}
		case anthropic.MessageDeltaEvent:
			assertStrings(t, map[string]jsonField{"delta.stop_reason": e.Delta.JSON.StopReason})
			assertInts(t, map[string]jsonField{"usage.output_tokens": e.Usage.JSON.OutputTokens})
			assert.Equal(t, e.Usage.OutputTokens, int64(words(textOf(&m))), "message_delta usage.output_tokens")
		}
	}
	require.NoError(t, stream.Err())
	require.NotNil(t, hr)
	assert.True(t, strings.HasPrefix(hr.Header.Get("Content-Type"), "text/event-stream"), "Content-Type %q", hr.Header.Get("Content-Type"))

	require.GreaterOrEqual(t, len(kinds), 6, "events: %v", kinds)
	assert.Equal(t, "message_start", kinds[0], "events: %v", kinds)
	assert.Equal(t, "content_block_start", kinds[1], "events: %v", kinds)
	assert.Equal(t, "content_block_stop", kinds[len(kinds)-3], "events: %v", kinds)
	assert.Equal(t, "message_delta", kinds[len(kinds)-2], "events: %v", kinds)
	assert.Equal(t, "message_stop", kinds[len(kinds)-1], "events: %v", kinds)
	for _, k := range kinds[2 : len(kinds)-3] {
		assert.Equal(t, "content_block_delta", k, "events: %v", kinds)
	}
	assert.NotEmpty(t, deltas.String())
	assert.Equal(t, deltas.String(), textOf(&m), "accumulated text differs from the concatenated deltas")
	return &m
}

func TestSDKAltFlashImage(t *testing.T) {
	t.Parallel()
	srv := sdkServer(t)
	client := newAnthropic(srv, sdkKeys.Alt)
	img := testPicture(96, 64)
	b64 := base64.StdEncoding.EncodeToString(pngOf(t, img))

	params := func(b64 string) anthropic.MessageNewParams {
		return anthropic.MessageNewParams{
			Model:     "alt-flash",
			MaxTokens: 1024,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(
				anthropic.NewImageBlockBase64("image/png", b64),
				anthropic.NewTextBlock("Describe this image, including its width and height in pixels."),
			)},
		}
	}

	t.Run("json", func(t *testing.T) {
		t.Parallel()
		m, err := client.Messages.New(sdkCtx(t), params(b64))
		require.NoError(t, err)
		checkMessage(t, m, "alt-flash", anthropic.StopReasonEndTurn)
		assert.Contains(t, textOf(m), "96x64")
	})
	t.Run("stream", func(t *testing.T) {
		t.Parallel()
		m := streamMessage(t, client, params(b64))
		checkMessage(t, m, "alt-flash", anthropic.StopReasonEndTurn)
		assert.Contains(t, textOf(m), "96x64")
	})
	t.Run("another size is read as such", func(t *testing.T) {
		t.Parallel()
		// The fixture is 96x64 too; a picture of another size must not be.
		m, err := client.Messages.New(sdkCtx(t), params(base64.StdEncoding.EncodeToString(pngOf(t, testPicture(80, 48)))))
		require.NoError(t, err)
		assert.Contains(t, textOf(m), "80x48")
		assert.NotContains(t, textOf(m), "96x64")

		m, err = client.Messages.New(sdkCtx(t), params(base64.StdEncoding.EncodeToString(fixture(t, fixtures.Small))))
		require.NoError(t, err)
		assert.Contains(t, textOf(m), "96x64")
	})
	t.Run("plain text", func(t *testing.T) {
		t.Parallel()
		m, err := client.Messages.New(sdkCtx(t), anthropic.MessageNewParams{
			Model: "alt-flash", MaxTokens: 1024,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hello there."))},
		})
		require.NoError(t, err)
		checkMessage(t, m, "alt-flash", anthropic.StopReasonEndTurn)
	})
}

func TestSDKMessagesNotFound(t *testing.T) {
	t.Parallel()
	srv := sdkServer(t)
	client := newAnthropic(srv, sdkKeys.Messages)
	for _, model := range []string{"msg-sonnet-4-6", "msg-no-such-model"} {
		p := anthropic.MessageNewParams{
			Model: anthropic.Model(model), MaxTokens: 256,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hello."))},
		}
		t.Run(model+"/json", func(t *testing.T) {
			t.Parallel()
			m, err := client.Messages.New(sdkCtx(t), p)
			require.Error(t, err)
			assert.Nil(t, m)
			checkNotFound(t, err)
		})
		t.Run(model+"/stream", func(t *testing.T) {
			t.Parallel()
			stream := client.Messages.NewStreaming(sdkCtx(t), p)
			defer stream.Close()
			assert.False(t, stream.Next())
			checkNotFound(t, stream.Err())
		})
	}
}

// TestSDKAnthropicRequestID: the Anthropic SDK reports the request id of an
// API error from the response header request-id (Error.RequestID), as the
// Anthropic API sends it; the gateway's error body carries request_id too.
func TestSDKAnthropicRequestID(t *testing.T) {
	t.Parallel()
	srv := sdkServer(t)
	client := newAnthropic(srv, sdkKeys.Messages)
	_, err := client.Messages.New(sdkCtx(t), anthropic.MessageNewParams{
		Model: "msg-sonnet-4-6", MaxTokens: 256,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hello."))},
	})
	var apiErr *anthropic.Error
	require.ErrorAs(t, err, &apiErr)
	require.NotEmpty(t, apiErr.RequestID, "no request-id header (headers: %v)", apiErr.Response.Header)
	if f, ok := apiErr.JSON.ExtraFields["request_id"]; ok {
		assert.Equal(t, `"`+apiErr.RequestID+`"`, f.Raw(), "body request_id differs from the request-id header")
	}
}

func checkNotFound(t *testing.T, err error) {
	t.Helper()
	var apiErr *anthropic.Error
	require.ErrorAs(t, err, &apiErr, "error %T %v", err, err)
	assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
	assert.Equal(t, "not_found_error", string(apiErr.Type()), "error body: %s", apiErr.RawJSON())
	assert.Contains(t, apiErr.Error(), "msg-", "the SDK's message names the model: %s", apiErr.Error())
}

func TestSDKImageGenerate(t *testing.T) {
	t.Parallel()
	srv := sdkServer(t)
	client := newOpenAI(srv, sdkKeys.Image)

	t.Run("json", func(t *testing.T) {
		t.Parallel()
		res, err := client.Images.Generate(sdkCtx(t), openai.ImageGenerateParams{
			Model:        "gen-image-2",
			Prompt:       "A lighthouse on a rocky coast at dusk.",
			Size:         "1024x1024",
			Quality:      "low",
			OutputFormat: "png",
		})
		require.NoError(t, err)
		checkImagesResponse(t, res, "png", "low", 1024, 1024, 1)
		assert.Equal(t, "opaque", string(res.Background))
		d := decodeB64(t, res.Data[0].B64JSON, "png", 1024, 1024)
		assertOpaque(t, d.img)
		assertNotFlat(t, d.img)
	})

	t.Run("stream", func(t *testing.T) {
		t.Parallel()
		var hr *http.Response
		stream := client.Images.GenerateStreaming(sdkCtx(t), openai.ImageGenerateParams{
			Model:         "gen-image-2.5-flare",
			Prompt:        "A red kite over green hills.",
			Size:          "1024x1024",
			Quality:       "low",
			OutputFormat:  "png",
			PartialImages: openai.Int(2),
		}, option.WithResponseInto(&hr))
		defer stream.Close()
		var previews, completed int
		for stream.Next() {
			ev := stream.Current()
			switch e := ev.AsAny().(type) {
			case openai.ImageGenPartialImageEvent:
				require.Zero(t, completed, "preview after the completed event")
				assertStrings(t, map[string]jsonField{"type": e.JSON.Type, "b64_json": e.JSON.B64JSON})
				assertInts(t, map[string]jsonField{"partial_image_index": e.JSON.PartialImageIndex})
				assert.Equal(t, int64(previews), e.PartialImageIndex)
				d := decodeB64(t, e.B64JSON, "png", 1024, 1024)
				assertNotFlat(t, d.img)
				previews++
			case openai.ImageGenCompletedEvent:
				assertStrings(t, map[string]jsonField{"type": e.JSON.Type, "b64_json": e.JSON.B64JSON})
				d := decodeB64(t, e.B64JSON, "png", 1024, 1024)
				assertOpaque(t, d.img)
				assertNotFlat(t, d.img)
				assert.Equal(t, "1024x1024", string(e.Size))
				assert.Equal(t, "png", string(e.OutputFormat))
				assert.Positive(t, e.Usage.OutputTokens)
				assert.Equal(t, e.Usage.InputTokens+e.Usage.OutputTokens, e.Usage.TotalTokens)
				completed++
			default:
				t.Errorf("unexpected event type %q: %.200s", ev.Type, ev.RawJSON())
			}
		}
		require.NoError(t, stream.Err())
		require.NotNil(t, hr)
		assert.True(t, strings.HasPrefix(hr.Header.Get("Content-Type"), "text/event-stream"), "Content-Type %q", hr.Header.Get("Content-Type"))
		assert.Equal(t, 1, completed, "completed events")
		assert.LessOrEqual(t, previews, 2, "previews")
		t.Logf("previews: %d", previews)
	})
}

// checkImagesResponse checks an image result (2.2) and decodes nothing.
func checkImagesResponse(t *testing.T, res *openai.ImagesResponse, format, quality string, w, h, n int) {
	t.Helper()
	require.NotNil(t, res)
	_, hasErr := res.JSON.ExtraFields["error"]
	assert.False(t, hasErr, "a 200 carried an error field")
	require.Len(t, res.Data, n, "images returned")
	assert.Positive(t, res.Created)
	assert.Equal(t, format, string(res.OutputFormat))
	assert.Equal(t, quality, string(res.Quality))
	assert.Equal(t, fmt.Sprintf("%dx%d", w, h), string(res.Size))
	assert.Positive(t, res.Usage.OutputTokens)
	assert.Equal(t, res.Usage.InputTokens+res.Usage.OutputTokens, res.Usage.TotalTokens)
	assert.True(t, res.Usage.InputTokensDetails.JSON.ImageTokens.Valid(), "usage.input_tokens_details.image_tokens")
	assert.True(t, res.Usage.InputTokensDetails.JSON.TextTokens.Valid(), "usage.input_tokens_details.text_tokens")
	assertInts(t, map[string]jsonField{"created": res.JSON.Created, "usage.total_tokens": res.Usage.JSON.TotalTokens})
	assertStrings(t, map[string]jsonField{
		"output_format": res.JSON.OutputFormat, "quality": res.JSON.Quality, "size": res.JSON.Size, "background": res.JSON.Background,
	})
	assertPresent(t, map[string]jsonField{"data": res.JSON.Data, "usage": res.JSON.Usage})
	for i, img := range res.Data {
		assertStrings(t, map[string]jsonField{"data[].b64_json": img.JSON.B64JSON})
		assert.Regexp(t, uuidRE, generationID(t, img), "data[%d].generation_id", i)
	}
}

func TestSDKImageEdit(t *testing.T) {
	t.Parallel()
	srv := sdkServer(t)
	client := newOpenAI(srv, sdkKeys.Image)
	refA, refB, mask := fixture(t, fixtures.RefA), fixture(t, fixtures.RefB), fixture(t, fixtures.Mask1024)
	// A mask drawn here: opaque with a transparent rectangle, 1024x1024.
	ownMask := pngOf(t, testMask(1024, 1024))
	single := func(b []byte, name string) openai.ImageEditParamsImageUnion {
		return openai.ImageEditParamsImageUnion{OfFile: openai.File(bytes.NewReader(b), name, "image/png")}
	}
	pair := func(a, b []byte) openai.ImageEditParamsImageUnion {
		return openai.ImageEditParamsImageUnion{OfFileArray: []io.Reader{
			openai.File(bytes.NewReader(a), "ref-a.png", "image/png"),
			openai.File(bytes.NewReader(b), "ref-b.png", "image/png"),
		}}
	}

	type check func(t *testing.T, d []decoded)
	cases := []struct {
		name   string
		params openai.ImageEditParams
		format string
		n      int
		check  check
	}{
		{
			name: "one image gen-image-2",
			params: openai.ImageEditParams{
				Model: "gen-image-2", Image: single(refA, "ref-a.png"),
				Prompt: "Add a small red boat on the horizon.", Size: "1024x1024", Quality: "low", OutputFormat: "png",
			},
			format: "png", n: 1,
			check: func(t *testing.T, d []decoded) { assertOpaque(t, d[0].img) },
		},
		{
			name: "one image flare, unnamed reader",
			params: openai.ImageEditParams{
				// A plain io.Reader: the SDK sends filename "anonymous_file"
				// and Content-Type application/octet-stream.
				Model: "gen-image-2.5-flare", Image: openai.ImageEditParamsImageUnion{OfFile: bytes.NewReader(refA)},
				Prompt: "Add a small red boat on the horizon.", Size: "1024x1024", Quality: "low", OutputFormat: "png",
			},
			format: "png", n: 1,
			check: func(t *testing.T, d []decoded) { assertOpaque(t, d[0].img) },
		},
		{
			name: "two images and a mask",
			params: openai.ImageEditParams{
				Model: "gen-image-2.5-flare", Image: pair(refA, refB),
				Mask:   openai.File(bytes.NewReader(mask), "mask.png", "image/png"),
				Prompt: "Put the red square of the second picture into the sky of the first.", Size: "1024x1024", Quality: "low", OutputFormat: "png",
			},
			format: "png", n: 1,
			check: func(t *testing.T, d []decoded) { assertOpaque(t, d[0].img) },
		},
		{
			name: "two images and a drawn mask",
			params: openai.ImageEditParams{
				Model: "gen-image-2.5-flare", Image: pair(refB, refA),
				Mask:   openai.File(bytes.NewReader(ownMask), "mask.png", "image/png"),
				Prompt: "Blend the two pictures in the masked rectangle.", Size: "1024x1024", Quality: "low", OutputFormat: "png",
			},
			format: "png", n: 1,
			check: func(t *testing.T, d []decoded) { assertOpaque(t, d[0].img) },
		},
		{
			name: "transparent png",
			params: openai.ImageEditParams{
				Model: "gen-image-2.5-flare", Image: single(refA, "ref-a.png"),
				Prompt: "Cut out the sun on a transparent background.", Size: "1024x1024", Quality: "low",
				OutputFormat: "png", Background: "transparent",
			},
			format: "png", n: 1,
			check: func(t *testing.T, d []decoded) {
				tr, op := alphaCounts(d[0].img)
				assert.Positive(t, tr, "no fully transparent pixel")
				assert.Positive(t, op, "no fully opaque pixel")
			},
		},
		{
			name: "jpeg",
			params: openai.ImageEditParams{
				Model: "gen-image-2.5-flare", Image: single(refA, "ref-a.png"),
				Prompt: "Make it a winter scene.", Size: "1024x1024", Quality: "low",
				OutputFormat: "jpeg", Background: "opaque", OutputCompression: openai.Int(100),
			},
			format: "jpeg", n: 1,
			check: func(t *testing.T, d []decoded) { assertOpaque(t, d[0].img) },
		},
		{
			name: "webp",
			params: openai.ImageEditParams{
				Model: "gen-image-2.5-flare", Image: single(refA, "ref-a.png"),
				Prompt: "Make it a night scene.", Size: "1024x1024", Quality: "low",
				OutputFormat: "webp", OutputCompression: openai.Int(50),
			},
			format: "webp", n: 1,
		},
		{
			name: "n=2",
			params: openai.ImageEditParams{
				Model: "gen-image-2.5-flare", Image: single(refA, "ref-a.png"), N: openai.Int(2),
				Prompt: "Add a flock of birds.", Size: "1024x1024", Quality: "low", OutputFormat: "png",
			},
			format: "png", n: 2,
			check: func(t *testing.T, d []decoded) {
				assertOpaque(t, d[0].img)
				assertOpaque(t, d[1].img)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := client.Images.Edit(sdkCtx(t), tc.params)
			require.NoError(t, err)
			checkImagesResponse(t, res, tc.format, "low", 1024, 1024, tc.n)
			var ds []decoded
			for _, img := range res.Data {
				d := decodeB64(t, img.B64JSON, tc.format, 1024, 1024)
				assertNotFlat(t, d.img)
				// An edit must not hand a reference back unchanged.
				assert.NotEqual(t, sha256.Sum256(refA), sha256.Sum256(d.raw))
				ds = append(ds, d)
			}
			if tc.check != nil {
				tc.check(t, ds)
			}
		})
	}

	t.Run("stream", func(t *testing.T) {
		t.Parallel()
		var hr *http.Response
		stream := client.Images.EditStreaming(sdkCtx(t), openai.ImageEditParams{
			Model: "gen-image-2.5-flare", Image: single(refA, "ref-a.png"),
			Prompt: "Add a rainbow.", Size: "1024x1024", Quality: "low", OutputFormat: "png",
			PartialImages: openai.Int(1),
		}, option.WithResponseInto(&hr))
		defer stream.Close()
		var previews, completed int
		for stream.Next() {
			ev := stream.Current()
			switch e := ev.AsAny().(type) {
			case openai.ImageEditPartialImageEvent:
				require.Zero(t, completed, "preview after the completed event")
				assertStrings(t, map[string]jsonField{"type": e.JSON.Type, "b64_json": e.JSON.B64JSON})
				assertInts(t, map[string]jsonField{"partial_image_index": e.JSON.PartialImageIndex})
				assert.Equal(t, int64(previews), e.PartialImageIndex)
				decodeB64(t, e.B64JSON, "png", 1024, 1024)
				previews++
			case openai.ImageEditCompletedEvent:
				assertStrings(t, map[string]jsonField{"type": e.JSON.Type, "b64_json": e.JSON.B64JSON})
				d := decodeB64(t, e.B64JSON, "png", 1024, 1024)
				assertOpaque(t, d.img)
				assertNotFlat(t, d.img)
				assert.Equal(t, "1024x1024", string(e.Size))
				assert.Equal(t, e.Usage.InputTokens+e.Usage.OutputTokens, e.Usage.TotalTokens)
				completed++
			default:
				t.Errorf("unexpected event type %q: %.200s", ev.Type, ev.RawJSON())
			}
		}
		require.NoError(t, stream.Err())
		require.NotNil(t, hr)
		assert.True(t, strings.HasPrefix(hr.Header.Get("Content-Type"), "text/event-stream"), "Content-Type %q", hr.Header.Get("Content-Type"))
		assert.Equal(t, 1, completed, "completed events")
		assert.LessOrEqual(t, previews, 1, "previews")
		t.Logf("previews: %d", previews)
	})

	t.Run("second reference and mask are used", func(t *testing.T) {
		t.Parallel()
		// The same prompt with reference A, with reference B, and with both
		// and a mask: images are deterministic, so an edit that ignored its
		// references (A = B) or the second reference and mask (A = A+B+mask)
		// shows as equal pixels.
		base := openai.ImageEditParams{
			Model: "gen-image-2.5-flare", Prompt: "Merge the pictures.",
			Size: "1024x1024", Quality: "low", OutputFormat: "png",
		}
		p1 := base
		p1.Image = single(refA, "ref-a.png")
		p2 := base
		p2.Image = single(refB, "ref-b.png")
		p3 := base
		p3.Image = pair(refA, refB)
		p3.Mask = openai.File(bytes.NewReader(mask), "mask.png", "image/png")
		var got [3]decoded
		for i, p := range []openai.ImageEditParams{p1, p2, p3} {
			res, err := client.Images.Edit(sdkCtx(t), p)
			require.NoError(t, err)
			checkImagesResponse(t, res, "png", "low", 1024, 1024, 1)
			got[i] = decodeB64(t, res.Data[0].B64JSON, "png", 1024, 1024)
		}
		assert.NotEqual(t, sha256.Sum256(got[0].raw), sha256.Sum256(got[1].raw), "references A and B gave the same image")
		assert.NotEqual(t, sha256.Sum256(got[0].raw), sha256.Sum256(got[2].raw), "two references and a mask gave the same image as one reference")
		// Each one-reference edit looks more like its own reference than like
		// the other (the pixels, not only the seed, come from the reference).
		imgA, err := png.Decode(bytes.NewReader(refA))
		require.NoError(t, err)
		imgB, err := png.Decode(bytes.NewReader(refB))
		require.NoError(t, err)
		aa, ab := refgateway.Likeness(got[0].img, imgA), refgateway.Likeness(got[0].img, imgB)
		ba, bb := refgateway.Likeness(got[1].img, imgA), refgateway.Likeness(got[1].img, imgB)
		ma, mb := refgateway.Likeness(got[2].img, imgA), refgateway.Likeness(got[2].img, imgB)
		t.Logf("likeness to A, B: edit(A) %.2f %.2f; edit(B) %.2f %.2f; edit(A+B+mask) %.2f %.2f", aa, ab, ba, bb, ma, mb)
		assert.GreaterOrEqual(t, aa-ab, 0.3, "edit of A is not like A")
		assert.GreaterOrEqual(t, bb-ba, 0.3, "edit of B is not like B")
	})

	t.Run("no prompt is a 400 *openai.Error", func(t *testing.T) {
		t.Parallel()
		_, err := client.Images.Edit(sdkCtx(t), openai.ImageEditParams{
			Model: "gen-image-2.5-flare", Image: single(refA, "ref-a.png"), Size: "1024x1024",
		})
		var apiErr *openai.Error
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	})
}
