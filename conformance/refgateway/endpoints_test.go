package refgateway

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAuth(t *testing.T) {
	t.Parallel()
	s := shared(t)
	paths := []struct{ method, path string }{
		{"GET", "/v1/models"}, {"POST", "/v1/chat/completions"}, {"POST", "/v1/messages"},
		{"POST", "/v1/images/generations"}, {"POST", "/v1/images/edits"}, {"POST", "/v1/responses"}, {"GET", "/v1/unknown"},
	}
	for _, p := range paths {
		for _, tc := range []struct {
			name string
			opt  reqOpt
		}{
			{"missing", nil},
			{"wrong key", withHeader("Authorization", "Bearer sk-wrong")},
			{"basic scheme", withHeader("Authorization", "Basic "+keys.Text)},
		} {
			t.Run(p.path+"/"+tc.name, func(t *testing.T) {
				var opts []reqOpt
				if tc.opt != nil {
					opts = append(opts, tc.opt)
				}
				r := s.do(t, p.method, p.path, "", map[string]any{}, opts...)
				assert.Equal(t, http.StatusUnauthorized, r.status)
				checkErrorBody(t, r, p.path)
			})
		}
	}
	// The Anthropic header works on /v1/messages.
	r := s.do(t, "POST", "/v1/messages", "", map[string]any{"model": "msg-opus-5", "max_tokens": 8, "messages": []any{map[string]any{"role": "user", "content": "hi"}}},
		withHeader("X-Api-Key", keys.Messages))
	assert.Equal(t, 200, r.status)
}

func TestModels(t *testing.T) {
	t.Parallel()
	eachNaming(t, func(t *testing.T, s *testServer) {
		for _, tc := range []struct {
			key   string
			specs []string
		}{
			{keys.Text, []string{"gen-5.5", "gen-5.6-luna", "gen-5.6-sol", "gen-5.6-terra", "gen-6-astra", "gen-extra"}},
			{keys.Messages, []string{"msg-sonnet-5", "msg-opus-5", "msg-haiku-4-5-20251001"}},
			{keys.Image, []string{"gen-image-2", "gen-image-2.5-flare", "gen-image-2.5-sunburst", "gen-image-9-extra"}},
			{keys.Alt, []string{"alt-flash", "alt-v4-pro"}},
		} {
			t.Run(tc.key, func(t *testing.T) {
				var want []string
				for _, spec := range tc.specs {
					want = append(want, s.model(spec))
				}
				r := s.do(t, "GET", "/v1/models", tc.key, nil)
				require.Equal(t, 200, r.status)
				assert.Empty(t, validateModels(r, want[0]).names())
				var ids []string
				data, _ := r.json(t)["data"].([]any)
				for _, d := range data {
					ids = append(ids, d.(map[string]any)["id"].(string))
				}
				assert.Equal(t, want, ids)
			})
		}
		r := s.do(t, "POST", "/v1/models", keys.Text, nil)
		assert.Equal(t, http.StatusMethodNotAllowed, r.status)
	})
}

func TestChat(t *testing.T) {
	t.Parallel()
	eachNaming(t, func(t *testing.T, s *testServer) {
		msg := func(c string) []any { return []any{map[string]any{"role": "user", "content": c}} }
		for _, tc := range []struct {
			name       string
			body       map[string]any
			maxTokens  int
			wantFinish string
		}{
			{"plain", map[string]any{"model": s.model("gen-5.5"), "messages": msg("Say hello")}, 0, "stop"},
			{"temperature and max_tokens", map[string]any{"model": s.model("gen-5.5"), "temperature": 0.2, "max_tokens": 256, "messages": msg("Say hello")}, 256, "stop"},
			{"cut by max_tokens", map[string]any{"model": s.model("gen-5.5"), "max_tokens": 5, "messages": msg("Write 40 words")}, 5, "length"},
			{"max_completion_tokens", map[string]any{"model": s.model("gen-5.5"), "max_completion_tokens": 3, "messages": msg("Write 40 words")}, 3, "length"},
			{"parts content", map[string]any{"model": s.model("gen-extra"), "messages": []any{map[string]any{"role": "system", "content": "be brief"}, map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "hi"}}}}}, 0, "stop"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.do(t, "POST", "/v1/chat/completions", keys.Text, tc.body)
				assert.Empty(t, validateChatJSON(r, tc.body["model"].(string), tc.maxTokens).names())
				m := r.json(t)
				fr, _ := field(m, "choices.0.finish_reason")
				assert.Equal(t, tc.wantFinish, fr)
				content, _ := field(m, "choices.0.message.content")
				u := m["usage"].(map[string]any)
				assert.Equal(t, u["prompt_tokens"].(float64)+u["completion_tokens"].(float64), u["total_tokens"])

				stream := map[string]any{"stream": true, "stream_options": map[string]any{"include_usage": true}}
				for k, v := range tc.body {
					stream[k] = v
				}
				rs := s.do(t, "POST", "/v1/chat/completions", keys.Text, stream)
				assert.Empty(t, validateChatStream(rs, tc.body["model"].(string), tc.maxTokens).names())
				// Deterministic: the stream carries the same text as the JSON answer.
				events, _, _ := parseSSE(rs.body)
				var text strings.Builder
				for _, e := range events {
					if e.data == "[DONE]" {
						continue
					}
					var m map[string]any
					require.NoError(t, jsonUnmarshal(e.data, &m))
					if c, ok := field(m, "choices.0.delta.content"); ok {
						text.WriteString(c.(string))
					}
				}
				assert.Equal(t, content, text.String())
				assert.Contains(t, events[len(events)-2].data, `"total_tokens"`, "usage chunk before [DONE]")
			})
		}
		for _, tc := range []struct {
			name string
			key  string
			body any
			want int
		}{
			{"messages key", keys.Messages, map[string]any{"model": s.model("gen-5.5"), "messages": msg("x")}, 404},
			{"unknown model", keys.Text, map[string]any{"model": s.model("gen-0"), "messages": msg("x")}, 404},
			{"messages-family model", keys.Messages, map[string]any{"model": s.model("msg-opus-5"), "messages": msg("x")}, 404},
			{"bad temperature", keys.Text, map[string]any{"model": s.model("gen-5.5"), "temperature": 7, "messages": msg("x")}, 400},
			{"bad max_tokens", keys.Text, map[string]any{"model": s.model("gen-5.5"), "max_tokens": 0, "messages": msg("x")}, 400},
			{"bad role", keys.Text, map[string]any{"model": s.model("gen-5.5"), "messages": []any{map[string]any{"role": "wizard", "content": "x"}}}, 400},
			{"model wrong type", keys.Text, map[string]any{"model": 5, "messages": msg("x")}, 400},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.do(t, "POST", "/v1/chat/completions", tc.key, tc.body)
				assert.Equal(t, tc.want, r.status, "%s", r.body)
				checkErrorBody(t, r, "/v1/chat/completions")
			})
		}
	})
}

func TestMessages(t *testing.T) {
	t.Parallel()
	eachNaming(t, func(t *testing.T, s *testServer) {
		msg := func(c any) []any { return []any{map[string]any{"role": "user", "content": c}} }
		for _, spec := range []string{"msg-sonnet-5", "msg-opus-5", "msg-haiku-4-5-20251001"} {
			model := s.model(spec)
			for _, max := range []int{256, 4} {
				t.Run(fmt.Sprintf("%s/max%d", model, max), func(t *testing.T) {
					body := map[string]any{"model": model, "max_tokens": max, "messages": msg("Write 30 words about stone")}
					r := s.do(t, "POST", "/v1/messages", keys.Messages, body)
					assert.Empty(t, validateMessagesJSON(r, model, max).names())
					m := r.json(t)
					want := "end_turn"
					if max == 4 {
						want = "max_tokens"
					}
					assert.Equal(t, want, m["stop_reason"])
					body["stream"] = true
					rs := s.do(t, "POST", "/v1/messages", keys.Messages, body)
					assert.Empty(t, validateMessagesStream(rs, model, max).names())
					events, _, _ := parseSSE(rs.body)
					var names []string
					for _, e := range events {
						if len(names) == 0 || names[len(names)-1] != e.name {
							names = append(names, e.name)
						}
					}
					assert.Equal(t, []string{"message_start", "content_block_start", "ping", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}, names)
				})
			}
		}
		t.Run("alt-flash image", func(t *testing.T) {
			img := testPNG(t, 96, 64, rgba(10, 20, 30), false)
			content := []any{
				map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": base64.StdEncoding.EncodeToString(img)}},
				map[string]any{"type": "text", "text": "Describe this image"},
			}
			for _, stream := range []bool{false, true} {
				r := s.do(t, "POST", "/v1/messages", keys.Alt, map[string]any{"model": s.model("alt-flash"), "max_tokens": 1024, "stream": stream, "messages": msg(content)})
				require.Equal(t, 200, r.status, "%s", r.body)
				assert.Contains(t, string(r.body), "96x64")
			}
		})
		for _, tc := range []struct {
			name string
			key  string
			body map[string]any
			want int
		}{
			{"alt without max_tokens", keys.Alt, map[string]any{"model": s.model("alt-flash"), "messages": msg("hi")}, 400},
			{"alt two images", keys.Alt, map[string]any{"model": s.model("alt-flash"), "max_tokens": 8, "messages": msg([]any{imageBlock(t, "image/png"), imageBlock(t, "image/png")})}, 400},
			{"media type mismatch", keys.Alt, map[string]any{"model": s.model("alt-flash"), "max_tokens": 8, "messages": msg([]any{imageBlock(t, "image/jpeg")})}, 400},
			{"bad base64 image", keys.Alt, map[string]any{"model": s.model("alt-flash"), "max_tokens": 8, "messages": msg([]any{map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "@@@"}}})}, 400},
			{"not an image", keys.Alt, map[string]any{"model": s.model("alt-flash"), "max_tokens": 8, "messages": msg([]any{map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": base64.StdEncoding.EncodeToString([]byte("hello"))}}})}, 400},
			{"without messages", keys.Messages, map[string]any{"model": s.model("msg-opus-5"), "max_tokens": 8}, 400},
			{"alt-v4-pro served", keys.Alt, map[string]any{"model": s.model("alt-v4-pro"), "max_tokens": 8, "messages": msg("hi")}, 200},
			{"text key", keys.Text, map[string]any{"model": s.model("msg-opus-5"), "max_tokens": 8, "messages": msg("hi")}, 404},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.do(t, "POST", "/v1/messages", tc.key, tc.body)
				assert.Equal(t, tc.want, r.status, "%s", r.body)
				if tc.want != 200 {
					checkErrorBody(t, r, "/v1/messages")
				}
			})
		}
	})
}

func imageBlock(t *testing.T, mediaType string) map[string]any {
	img := testPNG(t, 8, 8, rgba(1, 2, 3), false)
	return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": mediaType, "data": base64.StdEncoding.EncodeToString(img)}}
}

func TestResponses(t *testing.T) {
	t.Parallel()
	eachNaming(t, func(t *testing.T, s *testServer) {
		r := s.do(t, "POST", "/v1/responses", keys.Text, map[string]any{"model": s.model("gen-5.6-luna"), "input": "hello there"})
		require.Equal(t, 200, r.status)
		m := r.json(t)
		assert.Equal(t, "response", m["object"])
		assert.Equal(t, "completed", m["status"])
		txt, _ := field(m, "output.0.content.0.text")
		assert.NotEmpty(t, txt)
		rs := s.do(t, "POST", "/v1/responses", keys.Text, map[string]any{"model": s.model("gen-6-astra"), "input": "hello", "stream": true})
		events, complete, unended := parseSSE(rs.body)
		require.True(t, complete)
		require.False(t, unended)
		assert.Equal(t, "response.created", events[0].name)
		assert.Equal(t, "response.completed", events[len(events)-1].name)
		assert.Equal(t, 400, s.do(t, "POST", "/v1/responses", keys.Text, map[string]any{"input": "x"}).status)
		assert.Equal(t, 404, s.do(t, "POST", "/v1/responses", keys.Image, map[string]any{"model": s.model("gen-5.5"), "input": "x"}).status)
	})
}

func TestImagesGenerations(t *testing.T) {
	t.Parallel()
	eachNaming(t, func(t *testing.T, s *testServer) {
		for _, tc := range []struct {
			name string
			body map[string]any
			exp  imageExpect
		}{
			{"defaults: model flare, size 1254", map[string]any{"prompt": "a fox"}, imageExpect{n: 1, format: "png", w: 1254, h: 1254}},
			{"gen-image-2 1024 quality high", map[string]any{"model": s.model("gen-image-2"), "prompt": "a fox", "size": "1024x1024", "quality": "high", "output_format": "png"}, imageExpect{n: 1, format: "png", w: 1024, h: 1024}},
			{"gen-image-2 quality low", map[string]any{"model": s.model("gen-image-2"), "prompt": "a fox", "size": "1024x1024", "quality": "low"}, imageExpect{n: 1, format: "png", w: 1024, h: 1024}},
			{"sunburst 1536x1024 jpeg opaque", map[string]any{"model": s.model("gen-image-2.5-sunburst"), "prompt": "a fox", "size": "1536x1024", "output_format": "jpeg", "background": "opaque", "output_compression": 0, "quality": "xhigh"}, imageExpect{n: 1, format: "jpeg", w: 1536, h: 1024}},
			{"flare auto size webp transparent", map[string]any{"model": s.model("gen-image-2.5-flare"), "prompt": "a fox", "size": "auto", "output_format": "webp", "background": "transparent", "quality": "max"}, imageExpect{n: 1, format: "webp", w: 1024, h: 1024, transparent: true}},
			{"extra model", map[string]any{"model": s.model("gen-image-9-extra"), "prompt": "a fox", "size": "1024x1024"}, imageExpect{n: 1, format: "png", w: 1024, h: 1024}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.do(t, "POST", "/v1/images/generations", keys.Image, tc.body)
				v, _ := validateImageJSON(r, tc.exp)
				assert.Empty(t, v.names())
				m := r.json(t)
				want := "auto"
				if q, ok := tc.body["quality"]; ok {
					want = q.(string)
				}
				assert.Equal(t, want, m["quality"])
			})
		}
		t.Run("stream partial_images 0..3", func(t *testing.T) {
			for p := range 4 {
				body := map[string]any{"model": s.model("gen-image-2.5-flare"), "prompt": "a lighthouse", "n": 2, "size": "1024x1024", "background": "transparent", "stream": true, "partial_images": p}
				r := s.do(t, "POST", "/v1/images/generations", keys.Image, body)
				assert.Empty(t, validateImageStream(r, imageExpect{n: 2, format: "png", w: 1024, h: 1024, transparent: true, family: "image_generation", partial: p}).names(), "partial %d", p)
				if p == 0 {
					events, _, _ := parseSSE(r.body)
					assert.Len(t, events, 2, "partial_images 0: completed events only")
				}
			}
		})
		for _, tc := range []struct {
			name string
			body map[string]any
		}{
			{"gen-image-2 quality xhigh", map[string]any{"model": s.model("gen-image-2"), "prompt": "x", "quality": "xhigh"}},
			{"bad quality", map[string]any{"prompt": "x", "quality": "ultra"}},
			{"bad size", map[string]any{"prompt": "x", "size": "512x512"}},
			{"bad format", map[string]any{"prompt": "x", "output_format": "gif"}},
			{"transparent jpeg", map[string]any{"prompt": "x", "output_format": "jpeg", "background": "transparent"}},
			{"bad background", map[string]any{"prompt": "x", "background": "pink"}},
			{"compression 101", map[string]any{"prompt": "x", "output_format": "jpeg", "output_compression": 101}},
			{"n 0", map[string]any{"prompt": "x", "n": 0}},
			{"n 5", map[string]any{"prompt": "x", "n": 5}},
			{"no prompt", map[string]any{"model": s.model("gen-image-2")}},
			{"response_format url", map[string]any{"prompt": "x", "response_format": "url"}},
			{"n as string", map[string]any{"prompt": "x", "n": "2"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.do(t, "POST", "/v1/images/generations", keys.Image, tc.body)
				assert.Equal(t, 400, r.status, "%s", r.body)
				checkErrorBody(t, r, "/v1/images/generations")
			})
		}
		assert.Equal(t, 403, s.do(t, "POST", "/v1/images/generations", keys.Text, map[string]any{"prompt": "x"}).status, "text key: no image permission (5.2)")
		assert.Equal(t, 404, s.do(t, "POST", "/v1/images/generations", keys.Image, map[string]any{"model": s.model("gen-image-1"), "prompt": "x"}).status)
	})
}

func TestImagesEdits(t *testing.T) {
	t.Parallel()
	eachNaming(t, func(t *testing.T, s *testServer) {
		a, b, mask := refs(t)
		png1024 := imageExpect{n: 1, format: "png", w: 1024, h: 1024}
		for _, tc := range []struct {
			name string
			body func() any
			exp  imageExpect
		}{
			{"json one ref", func() any {
				return map[string]any{"model": s.model("gen-image-2"), "prompt": "paint it", "size": "1024x1024", "images": []any{map[string]any{"image_url": dataURL(a)}}}
			}, png1024},
			{"json two refs and mask, n 2", func() any {
				return map[string]any{"prompt": "paint it", "size": "1024x1024", "n": 2, "images": []any{map[string]any{"image_url": dataURL(a)}, map[string]any{"image_url": dataURL(b)}}, "mask": map[string]any{"image_url": dataURL(mask)}}
			}, imageExpect{n: 2, format: "png", w: 1024, h: 1024}},
			{"multipart image", func() any {
				return makeMultipart(t, map[string]string{"model": s.model("gen-image-2"), "prompt": "paint it", "size": "1024x1024"}, formFile{"image", a})
			}, png1024},
			{"multipart image[] x2 and mask, transparent png", func() any {
				return makeMultipart(t, map[string]string{"model": s.model("gen-image-2.5-flare"), "prompt": "paint it", "size": "1024x1024", "background": "transparent", "output_format": "png"}, formFile{"image[]", a}, formFile{"image[]", b}, formFile{"mask", mask})
			}, imageExpect{n: 1, format: "png", w: 1024, h: 1024, transparent: true}},
			{"multipart jpeg 100", func() any {
				return makeMultipart(t, map[string]string{"prompt": "paint it", "size": "1024x1536", "output_format": "jpeg", "output_compression": "100", "background": "opaque", "quality": "medium"}, formFile{"image", a})
			}, imageExpect{n: 1, format: "jpeg", w: 1024, h: 1536}},
			{"multipart webp 50 auto", func() any {
				return makeMultipart(t, map[string]string{"prompt": "paint it", "size": "1024x1024", "output_format": "webp", "output_compression": "50", "background": "auto"}, formFile{"image", a})
			}, imageExpect{n: 1, format: "webp", w: 1024, h: 1024}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				v, _ := validateImageJSON(s.do(t, "POST", "/v1/images/edits", keys.Image, tc.body()), tc.exp)
				assert.Empty(t, v.names())
			})
		}
		t.Run("json stream", func(t *testing.T) {
			body := map[string]any{"prompt": "add a moon", "size": "1024x1024", "stream": true, "partial_images": 0, "images": []any{map[string]any{"image_url": dataURL(a)}}}
			r := s.do(t, "POST", "/v1/images/edits", keys.Image, body)
			assert.Empty(t, validateImageStream(r, imageExpect{n: 1, format: "png", w: 1024, h: 1024, family: "image_edit"}).names())
		})
		t.Run("https reference", func(t *testing.T) {
			ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/ref.png" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "image/png")
				_, _ = w.Write(a)
			}))
			defer ts.Close()
			cfg := s.gw.cfg // the naming's gateway, fetching from the test's TLS server
			cfg.HTTPClient = ts.Client()
			gs := newServer(t, cfg)
			body := map[string]any{"prompt": "paint it", "size": "1024x1024", "images": []any{map[string]any{"image_url": ts.URL + "/ref.png"}}}
			v, _ := validateImageJSON(gs.do(t, "POST", "/v1/images/edits", keys.Image, body), png1024)
			assert.Empty(t, v.names())
			body["images"] = []any{map[string]any{"image_url": ts.URL + "/missing.png"}}
			assert.Equal(t, 400, gs.do(t, "POST", "/v1/images/edits", keys.Image, body).status)
			body["images"] = []any{map[string]any{"image_url": strings.Replace(ts.URL, "https", "http", 1) + "/ref.png"}}
			assert.Equal(t, 400, gs.do(t, "POST", "/v1/images/edits", keys.Image, body).status, "plain http refused")
		})
		big := testPNG(t, 80, 64, rgba(0, 0, 0), true)
		for _, tc := range []struct {
			name string
			body func() any
		}{
			{"gen-image-2 two refs", func() any {
				return makeMultipart(t, map[string]string{"model": s.model("gen-image-2"), "prompt": "x"}, formFile{"image[]", a}, formFile{"image[]", b})
			}},
			{"gen-image-2 mask", func() any {
				return map[string]any{"model": s.model("gen-image-2"), "prompt": "x", "images": []any{map[string]any{"image_url": dataURL(a)}}, "mask": map[string]any{"image_url": dataURL(mask)}}
			}},
			{"mask size mismatch", func() any {
				return makeMultipart(t, map[string]string{"prompt": "x"}, formFile{"image", a}, formFile{"mask", big})
			}},
			{"bad data url", func() any {
				return map[string]any{"prompt": "x", "images": []any{map[string]any{"image_url": "data:image/png,xyz"}}}
			}},
			{"bad base64", func() any {
				return map[string]any{"prompt": "x", "images": []any{map[string]any{"image_url": "data:image/png;base64,@@@@"}}}
			}},
			{"not an image", func() any {
				return map[string]any{"prompt": "x", "images": []any{map[string]any{"image_url": "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("plain text"))}}}
			}},
			{"truncated png", func() any {
				return makeMultipart(t, map[string]string{"prompt": "x"}, formFile{"image", a[:len(a)/2]})
			}},
			{"json and multipart mixed", func() any {
				return makeMultipart(t, map[string]string{"prompt": "x", "n": "two"}, formFile{"image", a})
			}},
			{"image_url missing", func() any {
				return map[string]any{"prompt": "x", "images": []any{map[string]any{}}}
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.do(t, "POST", "/v1/images/edits", keys.Image, tc.body())
				assert.Equal(t, 400, r.status, "%s", r.body)
				checkErrorBody(t, r, "/v1/images/edits")
			})
		}
	})
}

// TestBadInput: malformed bodies get a 4xx with a JSON error body, never a 5xx.
func TestBadInput(t *testing.T) {
	t.Parallel()
	s := newServer(t, Config{MaxBodyBytes: 1 << 20})
	a, _, _ := refs(t)
	mp := makeMultipart(t, map[string]string{"prompt": "x"}, formFile{"image", a})
	huge := bytes.Repeat([]byte("a"), 2<<20)
	// A PNG header claiming 100000x100000 pixels.
	bomb := testPNG(t, 1, 1, rgba(0, 0, 0), false)
	bomb = append([]byte(nil), bomb...)
	copy(bomb[16:24], []byte{0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0})
	for _, tc := range []struct {
		name, path, key, ct string
		body                []byte
		want                int
	}{
		{"malformed chat json", "/v1/chat/completions", keys.Text, "application/json", []byte(`{"model":`), 400},
		{"chat json array", "/v1/chat/completions", keys.Text, "application/json", []byte(`[1,2]`), 400},
		{"messages not json", "/v1/messages", keys.Messages, "application/json", []byte(`hello`), 400},
		{"generation malformed", "/v1/images/generations", keys.Image, "application/json", []byte(`{"prompt":"x"`), 400},
		{"generation multipart", "/v1/images/generations", keys.Image, mp.contentType, mp.data, 400},
		{"edit truncated multipart", "/v1/images/edits", keys.Image, mp.contentType, mp.data[:len(mp.data)/2], 400},
		{"edit multipart without boundary", "/v1/images/edits", keys.Image, "multipart/form-data", mp.data, 400},
		{"edit bad content type", "/v1/images/edits", keys.Image, "text/plain", []byte("x"), 400},
		{"edit pixel bomb", "/v1/images/edits", keys.Image, "application/json", []byte(`{"prompt":"x","images":[{"image_url":"` + dataURL(bomb) + `"}]}`), 400},
		{"oversize chat", "/v1/chat/completions", keys.Text, "application/json", huge, 413},
		{"oversize edit multipart", "/v1/images/edits", keys.Image, mp.contentType, append(mp.data[:len(mp.data):len(mp.data)], huge...), 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest("POST", s.URL+tc.path, bytes.NewReader(tc.body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", tc.ct)
			req.Header.Set("Authorization", "Bearer "+tc.key)
			res, err := s.Client().Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			r := resp{status: res.StatusCode, header: res.Header}
			r.body, _ = ioReadAll(res.Body)
			assert.Equal(t, tc.want, r.status, "%s", r.body)
			checkErrorBody(t, r, tc.path)
		})
	}
	t.Run("oversize without content-length", func(t *testing.T) {
		pr, pw := ioPipe()
		go func() {
			_, _ = pw.Write(huge)
			_ = pw.Close()
		}()
		req, err := http.NewRequest("POST", s.URL+"/v1/chat/completions", pr)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+keys.Text)
		res, err := s.Client().Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		assert.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode)
	})
}
