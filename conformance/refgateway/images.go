package refgateway

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"image"
	"image/jpeg"
	"image/png"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	xwebp "golang.org/x/image/webp"

	"github.com/gwconform/gwconform/conformance/refgateway/imagery"
)

// What generations (4.4) and edits (4.5) share: the request and its
// parameters, their validation, and the answer, an image result (2.2) or an
// image stream (6.1).

const (
	modelImage2     = "gen-image-2"
	modelImageFlare = "gen-image-2.5-flare"
	maxImageN       = 4       // n above this is refused (bounds the cost of one request)
	maxInputPixels  = 1 << 24 // reference, mask and message images: at most 16 Mpx (4096x4096)
)

var (
	// sizes maps the accepted size values to pixels; an omitted size gives
	// 1254x1254 (spec 4.4, 4.5), "auto" 1024x1024.
	sizes        = map[string][2]int{"1024x1024": {1024, 1024}, "1536x1024": {1536, 1024}, "1024x1536": {1024, 1536}, "auto": {1024, 1024}}
	quality25    = []string{"low", "medium", "high", "xhigh", "max", "auto"}
	qualityImg2  = []string{"low", "medium", "high", "auto"}
	qualityScale = map[string]int{"low": 1, "medium": 4, "high": 16, "xhigh": 24, "max": 32, "auto": 4}
)

// imageRef is one JSON image reference: images[] or mask.
type imageRef struct {
	ImageURL *string `json:"image_url"`
	FileID   *string `json:"file_id"`
}

// imageRequest is the JSON body of generations and edits; multipart forms
// are read into the same structure.
type imageRequest struct {
	Model             *string    `json:"model"`
	Prompt            *string    `json:"prompt"`
	N                 *int       `json:"n"`
	Size              *string    `json:"size"`
	Quality           *string    `json:"quality"`
	Background        *string    `json:"background"`
	OutputFormat      *string    `json:"output_format"`
	OutputCompression *int       `json:"output_compression"`
	Stream            *bool      `json:"stream"`
	PartialImages     *int       `json:"partial_images"`
	ResponseFormat    *string    `json:"response_format"`
	Images            []imageRef `json:"images"`
	Mask              *imageRef  `json:"mask"`
}

// inputImage is a decoded reference or mask with its raw bytes (for the seed).
type inputImage struct {
	img image.Image
	raw []byte
}

// imageJob is a validated image request.
type imageJob struct {
	edit        bool
	model       model
	prompt      string
	n           int
	w, h        int
	size        string
	quality     string
	transparent bool
	background  string // as requested; "" when not sent
	format      string
	compression *int
	stream      bool
	partial     int
	refs        []inputImage
	mask        *inputImage
	seed        uint64
}

// runImages validates an image request, then answers it with the image
// result of 2.2 or, with stream true, the image stream of 6.1.
func (c *call) runImages(req *imageRequest, files *formFiles, edit bool) {
	job, err := c.buildJob(req, files, edit)
	if err != nil {
		c.answerErr(err)
		return
	}
	c.accept()
	job.stream = c.ans.streams(c.ep, req.Stream)
	if job.stream {
		c.streamImages(job)
		return
	}
	c.jsonImages(job)
}

// buildJob checks every parameter of generations and edits (4.4, 4.5, 7).
func (c *call) buildJob(req *imageRequest, files *formFiles, edit bool) (*imageJob, error) {
	// An omitted size gives 1254x1254 (4.4, 4.5).
	job := &imageJob{edit: edit, n: 1, partial: 0, format: "png", quality: "auto", w: 1254, h: 1254, size: "1254x1254"}
	lister, err := c.imageKeyKind()
	if err != nil {
		return nil, err
	}
	if job.prompt, err = c.imagePrompt(req.Prompt); err != nil {
		return nil, err
	}
	if job.model, err = c.imageModel(lister, req.Model); err != nil {
		return nil, err
	}
	if err := job.readOutputParams(req); err != nil {
		return nil, err
	}
	job.stream = deref(req.Stream)
	if job.partial, err = c.partialImages(req.PartialImages); err != nil {
		return nil, err
	}
	if err := c.readInputImages(job, req, files); err != nil {
		return nil, err
	}
	if err := c.vetImageJob(req, files, job); err != nil {
		return nil, err
	}
	job.seed = job.hash()
	return job, nil
}

// imageKeyKind is the key kind whose model list serves an image request.
// Image endpoints require a key with image permission (5 rule 2); a request
// let through without one is served as for an image key.
func (c *call) imageKeyKind() (string, error) {
	if c.kind == KindImage {
		return c.kind, nil
	}
	if err := c.violation(ruleImagePermission, "model", "this key has no image permission: image generation and editing need an image key"); err != nil {
		return "", err
	}
	return KindImage, nil
}

// imagePrompt is the prompt of an image request, which is required; "" for
// a request let through without one.
func (c *call) imagePrompt(p *string) (string, error) {
	if p == nil || strings.TrimSpace(*p) == "" {
		return "", c.violation(rulePromptRequired, "prompt", "prompt is required")
	}
	return *p, nil
}

// imageModel is the image model of list lister serving an image request
// for model id; omitted, it is the default (gen-image-2.5-flare, never
// gen-image-2). A request let through with an unknown model is served by
// the default model.
func (c *call) imageModel(lister string, id *string) (model, error) {
	want := c.g.specModel(lister, c.defaultImageModel()).ID
	if id != nil && *id != "" {
		want = *id
	}
	if m, found := c.g.lookupModel(lister, want); found && m.Family == KindImage && !c.unserved(m) {
		return m, nil
	}
	if err := c.unknownModel(want); err != nil {
		return model{}, err
	}
	return c.g.specModel(KindImage, modelImageFlare), nil
}

// readOutputParams checks the parameters shaping the output images. The
// order decides which error answers a request with several, and later
// checks depend on earlier ones: background and output_compression on
// output_format.
func (j *imageJob) readOutputParams(req *imageRequest) error {
	for _, read := range []func(*imageRequest) error{
		j.readN, j.readSize, j.readQuality, j.readOutputFormat, j.readBackground, j.readCompression, checkResponseFormat,
	} {
		if err := read(req); err != nil {
			return err
		}
	}
	return nil
}

func (j *imageJob) readN(req *imageRequest) error {
	if req.N == nil {
		return nil
	}
	if *req.N < 1 || *req.N > maxImageN {
		return bad("n", "n must be between 1 and %d", maxImageN)
	}
	j.n = *req.N
	return nil
}

func (j *imageJob) readSize(req *imageRequest) error {
	if req.Size == nil {
		return nil
	}
	wh, ok := sizes[*req.Size]
	if !ok {
		return bad("size", "size must be one of 1024x1024, 1536x1024, 1024x1536, auto; got %q", *req.Size)
	}
	j.w, j.h = wh[0], wh[1]
	j.size = fmt.Sprintf("%dx%d", wh[0], wh[1])
	return nil
}

// readQuality checks quality against the values of the job's model:
// gen-image-2 lacks the 2.5 models' xhigh and max.
func (j *imageJob) readQuality(req *imageRequest) error {
	if req.Quality == nil {
		return nil
	}
	allowed := quality25
	if j.model.Spec == modelImage2 {
		allowed = qualityImg2
	}
	if !slices.Contains(allowed, *req.Quality) {
		return bad("quality", "quality must be one of %s for %s; got %q", strings.Join(allowed, ", "), j.model.ID, *req.Quality)
	}
	j.quality = *req.Quality
	return nil
}

func (j *imageJob) readOutputFormat(req *imageRequest) error {
	if req.OutputFormat == nil {
		return nil
	}
	if !slices.Contains([]string{"png", "jpeg", "webp"}, *req.OutputFormat) {
		return bad("output_format", "output_format must be png, jpeg or webp; got %q", *req.OutputFormat)
	}
	j.format = *req.OutputFormat
	return nil
}

// readBackground checks background: transparent needs a format with an
// alpha channel.
func (j *imageJob) readBackground(req *imageRequest) error {
	if req.Background == nil {
		return nil
	}
	j.background = *req.Background
	switch *req.Background {
	case "transparent":
		if j.format == "jpeg" {
			return bad("background", "background transparent needs output_format png or webp")
		}
		j.transparent = true
	case "opaque", "auto":
	default:
		return bad("background", "background must be transparent, opaque or auto; got %q", *req.Background)
	}
	return nil
}

func (j *imageJob) readCompression(req *imageRequest) error {
	if req.OutputCompression == nil {
		return nil
	}
	v := *req.OutputCompression
	if v < 0 || v > 100 {
		return bad("output_compression", "output_compression must be between 0 and 100")
	}
	if j.format != "png" { // PNG is lossless: the value does not apply
		j.compression = &v
	}
	return nil
}

func checkResponseFormat(req *imageRequest) error {
	if req.ResponseFormat != nil && *req.ResponseFormat != "b64_json" {
		return bad("response_format", "only response_format b64_json is supported")
	}
	return nil
}

// partialImages is partial_images, 0 to 3 (0 when not sent); a value let
// through outside that range is clamped to it.
func (c *call) partialImages(p *int) (int, error) {
	if p == nil {
		return 0, nil
	}
	n := *p
	if n < 0 || n > 3 {
		if err := c.violation(rulePartialImages, "partial_images", "partial_images must be between 0 and 3"); err != nil {
			return 0, err
		}
		n = min(max(n, 0), 3)
	}
	return n, nil
}

// readInputImages reads the reference images and mask of an edit; a
// generation takes none.
func (c *call) readInputImages(job *imageJob, req *imageRequest, files *formFiles) error {
	if job.edit {
		return c.readEditInputs(job, req, files)
	}
	if len(req.Images) > 0 || req.Mask != nil {
		return bad("images", "image generation takes no reference images; use /v1/images/edits")
	}
	return nil
}

// decodeInput decodes a png, jpeg or webp input image after checking its
// declared dimensions, so a small file claiming a huge size cannot make the
// gateway allocate gigabytes.
func decodeInput(b []byte) (img image.Image, err error) {
	defer func() {
		// The decoders are not meant to panic, but input here is hostile.
		if v := recover(); v != nil {
			img, err = nil, fmt.Errorf("undecodable image")
		}
	}()
	var cfg image.Config
	switch imagery.Sniff(b) {
	case imagery.FormatPNG:
		cfg, err = png.DecodeConfig(bytes.NewReader(b))
	case imagery.FormatJPEG:
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(b))
	case imagery.FormatWebP:
		cfg, err = xwebp.DecodeConfig(bytes.NewReader(b))
	default:
		return nil, errors.New("not a png, jpeg or webp image")
	}
	if err != nil {
		return nil, fmt.Errorf("undecodable image: %v", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > maxInputPixels {
		return nil, fmt.Errorf("image of %dx%d pixels is outside the accepted range (1 to %d pixels)", cfg.Width, cfg.Height, maxInputPixels)
	}
	img, _, err = imagery.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("undecodable image: %v", err)
	}
	return img, nil
}

// hash derives the request's seed from what the picture shows: model,
// prompt, size, reference and mask bytes.
func (j *imageJob) hash() uint64 {
	h := fnv.New64a()
	put := func(s string) { h.Write([]byte(s)); h.Write([]byte{0}) }
	put(j.model.Spec) // a renamed model draws the same pictures
	put(j.prompt)
	put(j.size)
	// Quality, background and format do not enter the seed: they change how
	// the picture is delivered, not what it shows (and identical pictures
	// let the cache serve them).
	for _, r := range j.refs {
		putBytes(h, r.raw)
	}
	if j.mask != nil {
		put("mask")
		putBytes(h, j.mask.raw)
	}
	return h.Sum64()
}

func putBytes(h hash.Hash64, b []byte) {
	var l [8]byte
	binary.LittleEndian.PutUint64(l[:], uint64(len(b)))
	h.Write(l[:])
	h.Write(b)
}

// previewCount is how many previews image i of a stream gets: usually all
// requested, on about one request in four fewer (spec 6.1), by the seed.
func (j *imageJob) previewCount(i int) int {
	if j.partial == 0 {
		return 0
	}
	x := j.seed ^ uint64(i+1)*0x9e3779b97f4a7c15
	x ^= x >> 29
	if x%4 == 0 {
		return int((x / 4) % uint64(j.partial))
	}
	return j.partial
}

// usage is the token accounting of one request producing k images.
func (j *imageJob) usage(k int) map[string]any {
	text := len(strings.Fields(j.prompt))
	imgIn := 0
	for range j.refs {
		imgIn += 272
	}
	if j.mask != nil {
		imgIn += 136
	}
	perImage := j.w * j.h / 65536 * qualityScale[j.quality]
	out := perImage * k
	return map[string]any{
		"input_tokens":          text + imgIn,
		"input_tokens_details":  map[string]any{"image_tokens": imgIn, "text_tokens": text},
		"output_tokens":         out,
		"output_tokens_details": map[string]any{"image_tokens": out, "text_tokens": 0},
		"total_tokens":          text + imgIn + out,
	}
}

// scene is what output image i of j shows: an edit derives from its
// references, and keeps the first one where its mask is opaque (4.5).
func (j *imageJob) scene(i int) imagery.Scene {
	s := imagery.Scene{Prompt: j.prompt, Seed: j.seed + uint64(i), Width: j.w, Height: j.h, Transparent: j.transparent}
	for _, r := range j.refs {
		s.References = append(s.References, r.img)
	}
	if j.mask != nil && len(j.refs) > 0 {
		s.Mask = j.mask.img
	}
	return s
}

// render draws and encodes picture p of j (preview ≥ 0 for previews, -1 for
// the final image) and returns its base64 text as sent.
func (c *call) render(j *imageJob, p picture, preview int) (string, error) {
	s := p.scene
	s.Preview = preview
	comp := j.compression
	if p.format == "png" {
		comp = nil
	}
	key := fmt.Sprintf("%x|%d|%dx%d|%v|%v|%d|%s|%v", s.Seed, len(s.References), s.Width, s.Height, s.Transparent, s.Mask != nil, s.Preview, p.format, ptrInt(comp))
	b, ok := c.g.cache.get(key)
	if !ok {
		var err error
		b, err = imagery.Encode(renderScene(s), p.format, comp)
		if err != nil {
			return "", err
		}
		c.g.cache.put(key, b)
	}
	final := preview < 0
	if final {
		for _, damage := range p.damage {
			b = damage(b)
		}
	}
	enc := base64.StdEncoding.EncodeToString(b)
	if final {
		for _, garble := range p.garble {
			enc = garble(enc)
		}
	}
	return enc, nil
}

func ptrInt(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

func (j *imageJob) backgroundOut() string {
	if j.transparent {
		return "transparent"
	}
	return "opaque"
}

// jsonImages answers with the image result of 2.2: one data entry per
// returned image, each its b64_json and generation_id.
func (c *call) jsonImages(j *imageJob) {
	pics := c.pictures(j)
	data := []any{}
	for _, p := range pics {
		b64, err := c.render(j, p, -1)
		if err != nil {
			c.fail(http.StatusInternalServerError, "could not encode the image")
			return
		}
		if c.r.Context().Err() != nil {
			return
		}
		data = append(data, map[string]any{"b64_json": b64, "generation_id": newUUID()})
	}
	background := j.backgroundOut()
	if c.ans.echoBackground && j.background != "" {
		background = j.background
	}
	c.reply(map[string]any{
		"created": time.Now().Unix(), "background": background, "data": data,
		"output_format": j.format, "quality": j.quality, "size": j.size, "usage": j.usage(len(pics)),
	})
}

// streamImages answers with the image stream of 6.1: for each image, its
// previews (partial_image events), then its completed event.
func (c *call) streamImages(j *imageJob) {
	family := "image_generation"
	if j.edit {
		family = "image_edit"
	}
	pics := c.pictures(j)
	s := c.startStream()
	defer s.end()
	for _, p := range pics {
		for k := range p.previews {
			b64, err := c.render(j, p, min(k, 3))
			if err != nil {
				return
			}
			ev := event{name: family + ".partial_image", data: map[string]any{
				"type": family + ".partial_image", "b64_json": b64, "partial_image_index": k,
				"created_at": time.Now().Unix(), "size": j.size, "quality": j.quality,
				"background": j.backgroundOut(), "output_format": j.format,
			}}
			if p.previewsCompleted {
				ev = event{name: family + ".completed", data: map[string]any{
					"type": family + ".completed", "b64_json": b64, "generation_id": newUUID(),
					"created_at": time.Now().Unix(), "size": j.size, "quality": j.quality,
					"background": j.backgroundOut(), "output_format": j.format, "usage": j.usage(1),
				}}
			}
			if !s.send(ev) {
				return
			}
		}
		b64, err := c.render(j, p, -1)
		if err != nil {
			return
		}
		if !s.send(event{name: family + ".completed", cuttable: true, data: map[string]any{
			"type": family + ".completed", "b64_json": b64, "generation_id": newUUID(),
			"created_at": time.Now().Unix(), "size": j.size, "quality": j.quality,
			"background": j.backgroundOut(), "output_format": j.format, "usage": j.usage(1),
		}}) {
			return
		}
	}
}

// renderScene renders s. A transparent edit takes its alpha channel from the
// same scene rendered without references: where the mask keeps the (opaque)
// reference, the picture would otherwise have no transparent pixel at all,
// and spec 4.5 asks transparent output to carry a real alpha channel.
func renderScene(s imagery.Scene) *image.NRGBA {
	img := imagery.Render(s)
	if !s.Transparent || len(s.References) == 0 {
		return img
	}
	plain := s
	plain.References, plain.Mask = nil, nil
	alpha := imagery.Render(plain)
	if alpha.Bounds() != img.Bounds() {
		return img
	}
	for i := 3; i < len(img.Pix) && i < len(alpha.Pix); i += 4 {
		img.Pix[i] = alpha.Pix[i]
	}
	return img
}
