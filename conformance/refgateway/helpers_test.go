package refgateway

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/refgateway/imagery"
)

var keys = DefaultKeys()

// testServer is a gateway on a loopback httptest server.
type testServer struct {
	*httptest.Server
	gw *Gateway
	// neutralFree asserts that no answer names a model by a neutral id
	// (gen-, msg-, alt-): set where every neutral word is renamed and the
	// tests name their models through model only.
	neutralFree bool
}

// model is the name s serves the model of spec id spec under (for a
// retired or unknown id, the name it would have): tests that run under
// several namings name their models through it.
func (s *testServer) model(spec string) string { return s.gw.cfg.servedName(spec) }

// sharedServer is one gateway for many tests, so its image cache serves
// repeated renders across tests (1024x1024 encodes cost about a second
// under -race).
type sharedServer struct {
	cfg         Config
	neutralFree bool // see testServer
	once        sync.Once
	srv         *testServer
}

// get starts the gateway on first use.
func (sh *sharedServer) get() *testServer {
	sh.once.Do(func() {
		g, err := New(sh.cfg)
		if err != nil {
			panic(err)
		}
		sh.srv = &testServer{Server: httptest.NewServer(g), gw: g, neutralFree: sh.neutralFree}
	})
	return sh.srv
}

var (
	sharedExtras = []ExtraModel{{KindImage, "gen-image-9-extra"}, {KindText, "gen-extra"}}
	// testVendorWords is --vendor-words gen=gpt,msg=claude,alt=gemini, the
	// renaming the oracle tests run under besides none.
	testVendorWords = map[string]string{"gen": "gpt", "msg": "claude", "alt": "gemini"}
	sharedSpecIDs   = &sharedServer{cfg: Config{ExtraModels: sharedExtras}}
	sharedVendor    = &sharedServer{cfg: Config{ExtraModels: sharedExtras, VendorWords: testVendorWords}, neutralFree: true}
)

// shared is the gateway serving its models under their spec ids.
func shared(*testing.T) *testServer { return sharedSpecIDs.get() }

// sharedVendorWords is the gateway serving its models under testVendorWords.
func sharedVendorWords(*testing.T) *testServer { return sharedVendor.get() }

// eachNaming runs test against the shared gateway under each naming: its
// models' spec ids, and testVendorWords.
func eachNaming(t *testing.T, test func(t *testing.T, s *testServer)) {
	for _, n := range []struct {
		name   string
		server func(*testing.T) *testServer
	}{{"spec-ids", shared}, {"vendor-words", sharedVendorWords}} {
		t.Run(n.name, func(t *testing.T) { test(t, n.server(t)) })
	}
}

// newServer starts a private gateway; its cleanup asserts no panic was recovered.
func newServer(t *testing.T, cfg Config) *testServer {
	t.Helper()
	g, err := New(cfg)
	require.NoError(t, err)
	s := &testServer{Server: httptest.NewServer(g), gw: g}
	t.Cleanup(func() {
		s.Close()
		require.Zero(t, g.panics.Load(), "recover handler ran")
	})
	return s
}

// resp is a finished HTTP exchange.
type resp struct {
	status int
	header http.Header
	body   []byte
	path   string // the request's, for validators that judge by endpoint
}

func (r resp) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), "body: %.300s", r.body)
	return m
}

// reqOpt adjusts a request.
type reqOpt func(*http.Request)

func withFault(names ...string) reqOpt {
	return func(r *http.Request) { r.Header.Set(FaultHeader, strings.Join(names, ",")) }
}

func withHeader(k, v string) reqOpt { return func(r *http.Request) { r.Header.Set(k, v) } }

// do sends body (a []byte sent as is, nil for none, else JSON-encoded).
func (s *testServer) do(t *testing.T, method, path, key string, body any, opts ...reqOpt) resp {
	t.Helper()
	var rd io.Reader
	ct := ""
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
		ct = "application/json"
	case multipartBody:
		rd = bytes.NewReader(b.data)
		ct = b.contentType
	default:
		data, err := json.Marshal(b)
		require.NoError(t, err)
		rd = bytes.NewReader(data)
		ct = "application/json"
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	require.NoError(t, err)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for _, o := range opts {
		o(req)
	}
	res, err := s.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	if !(path == "/v1/models" && strings.Contains(string(data), "the model list is not available")) { // models-list-500's own answer
		require.Less(t, res.StatusCode, 500, "5xx: %.300s", data)
	}
	if s.neutralFree {
		require.Empty(t, neutralID(data), "%s %s answered a neutral id: %.300s", method, path, data)
	}
	return resp{status: res.StatusCode, header: res.Header, body: data, path: path}
}

// neutralID is the text from the first model id with a neutral word (gen-,
// msg-, alt-) in body on, or "". Image data is base64, which has no dash: a
// plain search keeps this cheap on answers of megabytes.
func neutralID(body []byte) string {
	for _, word := range neutralWords {
		needle := []byte(word + "-")
		for at := 0; ; at += len(needle) {
			i := bytes.Index(body[at:], needle)
			if i < 0 {
				break
			}
			at += i
			if at == 0 || !isAlphanumeric(body[at-1]) { // not the end of another word
				return string(body[at:min(at+40, len(body))])
			}
		}
	}
	return ""
}

func isAlphanumeric(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

// multipartBody is a ready multipart/form-data body.
type multipartBody struct {
	data        []byte
	contentType string
}

type formFile struct {
	field string
	data  []byte
}

func makeMultipart(t *testing.T, fields map[string]string, files ...formFile) multipartBody {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		require.NoError(t, w.WriteField(k, v))
	}
	for _, f := range files {
		fw, err := w.CreateFormFile(f.field, f.field+".png")
		require.NoError(t, err)
		_, err = fw.Write(f.data)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return multipartBody{data: buf.Bytes(), contentType: w.FormDataContentType()}
}

// sseEvent is one parsed stream event.
type sseEvent struct {
	name  string
	data  string // its data lines joined with "\n", as a reader joins them
	lines int    // data lines: more than one where no blank line parts two events, or one event's data is split
}

// parseSSE splits a stream into events; complete is false when the stream
// ends inside an event. A last event whose lines are whole and whose data
// is JSON or [DONE], but which no blank line ends, is kept, with unended
// true: the stream is complete, but a client following the WHATWG rules
// drops that event.
func parseSSE(body []byte) (events []sseEvent, complete, unended bool) {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var cur sseEvent
	open := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if open {
				events = append(events, cur)
			}
			cur, open = sseEvent{}, false
		case strings.HasPrefix(line, "event: "):
			cur.name, open = strings.TrimPrefix(line, "event: "), true
		case strings.HasPrefix(line, "data: "):
			if cur.lines > 0 {
				cur.data += "\n"
			}
			cur.data, open = cur.data+strings.TrimPrefix(line, "data: "), true
			cur.lines++
		}
	}
	if open && bytes.HasSuffix(body, []byte("\n")) && (json.Valid([]byte(cur.data)) || cur.data == "[DONE]") {
		return append(events, cur), true, true
	}
	return events, !open && bytes.HasSuffix(body, []byte("\n\n")), false
}

// testPNG makes a w×h PNG; with hole, a transparent square in the middle (a mask).
func testPNG(t testing.TB, w, h int, base color.NRGBA, hole bool) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := base
			c.R = uint8(int(base.R) + x*97/w)
			c.G = uint8(int(base.G) + y*89/h)
			if hole && x > w/4 && x < 3*w/4 && y > h/4 && y < 3*h/4 {
				c.A = 0
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func dataURL(b []byte) string { return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b) }

// decoded is a decoded result image (cached by content: decoding a 1024²
// image costs a third of a second under -race).
type decoded struct {
	img    image.Image
	format string
	err    error
}

var decodeCache sync.Map

func decodeB64(s string) (decoded, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return decoded{}, err
	}
	sum := sha256.Sum256(raw)
	if v, ok := decodeCache.Load(sum); ok {
		return v.(decoded), nil
	}
	img, f, err := imagery.Decode(raw)
	d := decoded{img: img, format: f, err: err}
	decodeCache.Store(sum, d)
	return d, nil
}

// alphaKinds reports whether img has fully transparent and fully opaque pixels.
func alphaKinds(img image.Image) (transparent, opaque bool) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			_, _, _, a := img.At(x, y).RGBA()
			switch a {
			case 0:
				transparent = true
			case 0xffff:
				opaque = true
			}
			if transparent && opaque {
				return
			}
		}
	}
	return
}

// Likeness compares two images by the Pearson correlation of their grey
// levels averaged over a 16x16 grid of cells (1 is the same picture, 0 none
// alike). The images may differ in size. Exported for the SDK tests
// (package refgateway_test), as a test-only helper.
func Likeness(a, b image.Image) float64 {
	grid := func(img image.Image) []float64 {
		bd := img.Bounds()
		out := make([]float64, 256)
		for gy := range 16 {
			for gx := range 16 {
				x0, x1 := bd.Min.X+gx*bd.Dx()/16, bd.Min.X+(gx+1)*bd.Dx()/16
				y0, y1 := bd.Min.Y+gy*bd.Dy()/16, bd.Min.Y+(gy+1)*bd.Dy()/16
				var sum float64
				var n int
				for y := y0; y < y1; y += 4 {
					for x := x0; x < x1; x += 4 {
						r, g, b, _ := img.At(x, y).RGBA()
						sum += float64(r + g + b)
						n++
					}
				}
				out[gy*16+gx] = sum / float64(max(n, 1))
			}
		}
		return out
	}
	x, y := grid(a), grid(b)
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

// field reads a dotted path of object keys and array indexes.
func field(v any, path string) (any, bool) {
	for p := range strings.SplitSeq(path, ".") {
		switch cur := v.(type) {
		case map[string]any:
			nv, ok := cur[p]
			if !ok {
				return nil, false
			}
			v = nv
		case []any:
			i := 0
			for _, ch := range p {
				if ch < '0' || ch > '9' {
					return nil, false
				}
				i = i*10 + int(ch-'0')
			}
			if i >= len(cur) {
				return nil, false
			}
			v = cur[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// gradientPNG makes a grey ramp from black to white, left to right or top to bottom.
func gradientPNG(t testing.TB, w, h int, vertical bool) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			v := uint8(x * 255 / (w - 1))
			if vertical {
				v = uint8(y * 255 / (h - 1))
			}
			img.SetNRGBA(x, y, color.NRGBA{v, v, v, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

func rgba(r, g, b uint8) color.NRGBA { return color.NRGBA{r, g, b, 255} }

func ioReadAll(r io.Reader) ([]byte, error) { return io.ReadAll(r) }

func ioPipe() (*io.PipeReader, *io.PipeWriter) { return io.Pipe() }
