package refgateway

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	xwebp "golang.org/x/image/webp"

	"github.com/gwconform/gwconform/conformance/refgateway/imagery"
)

const (
	modelImage2      = "gen-image-2"
	modelImageFlare  = "gen-image-2.5-flare"
	maxImageN        = 4       // n above this is refused (bounds the cost of one request)
	maxInputPixels   = 1 << 24 // reference, mask and message images: at most 16 Mpx (4096x4096)
	maxFormFieldSize = 1 << 20 // a text field of a multipart form
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
	format      string
	compression *int
	stream      bool
	partial     int
	refs        []inputImage
	mask        *inputImage
	seed        uint64
}

// errBad is a client error found while reading an image request.
type errBad struct{ param, msg string }

func (e *errBad) Error() string { return e.msg }

func bad(param, format string, args ...any) error {
	return &errBad{param: param, msg: fmt.Sprintf(format, args...)}
}

// answerErr answers an error from request reading: errBad → 400, body limit → 413.
func (c *call) answerErr(err error) {
	var eb *errBad
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		c.fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("request body exceeds the limit of %d bytes", c.g.maxBody))
	case errors.As(err, &eb):
		c.failParam(http.StatusBadRequest, eb.param, eb.msg)
	default:
		c.fail(http.StatusBadRequest, err.Error())
	}
}

func (c *call) imagesGenerations() {
	ct, _, _ := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
	if ct != "" && ct != "application/json" {
		c.fail(http.StatusBadRequest, fmt.Sprintf("unsupported Content-Type %q: image generation takes application/json", ct))
		return
	}
	var req imageRequest
	if !c.readJSON(&req) {
		return
	}
	c.runImages(&req, nil, false)
}

func (c *call) imagesEdits() {
	ct, params, err := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
	if c.r.Header.Get("Content-Type") == "" {
		ct, err = "application/json", nil
	}
	if err != nil {
		c.fail(http.StatusBadRequest, "bad Content-Type: "+err.Error())
		return
	}
	switch ct {
	case "application/json":
		var req imageRequest
		if !c.readJSON(&req) {
			return
		}
		c.runImages(&req, nil, true)
	case "multipart/form-data":
		if params["boundary"] == "" {
			c.fail(http.StatusBadRequest, "multipart body without a boundary")
			return
		}
		if c.r.ContentLength > c.g.maxBody {
			c.fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("request body of %d bytes exceeds the limit of %d bytes", c.r.ContentLength, c.g.maxBody))
			return
		}
		c.r.Body = http.MaxBytesReader(c.w, c.r.Body, c.g.maxBody)
		req, files, err := readMultipart(multipart.NewReader(c.r.Body, params["boundary"]))
		if err != nil {
			c.answerErr(err)
			return
		}
		c.runImages(req, files, true)
	default:
		c.fail(http.StatusBadRequest, fmt.Sprintf("unsupported Content-Type %q: use application/json or multipart/form-data", ct))
	}
}

// formFiles are the file parts of a multipart edit.
type formFiles struct {
	images [][]byte
	mask   []byte
	hasMsk bool
}

// readMultipart reads an edit form part by part (never buffering more than
// the body limit, which the caller's MaxBytesReader enforces).
func readMultipart(mr *multipart.Reader) (*imageRequest, *formFiles, error) {
	req := &imageRequest{}
	files := &formFiles{}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, wrapMultipart(err)
		}
		name := p.FormName()
		switch name {
		case "image", "image[]", "mask":
			b, err := io.ReadAll(p)
			if err != nil {
				return nil, nil, wrapMultipart(err)
			}
			if name == "mask" {
				if files.hasMsk {
					return nil, nil, bad("mask", "more than one mask field")
				}
				files.mask, files.hasMsk = b, true
			} else {
				files.images = append(files.images, b)
			}
			continue
		}
		b, err := io.ReadAll(io.LimitReader(p, maxFormFieldSize+1))
		if err != nil {
			return nil, nil, wrapMultipart(err)
		}
		if len(b) > maxFormFieldSize {
			return nil, nil, bad(name, "form field %q is too long", name)
		}
		v := string(b)
		intField := func(dst **int) error {
			i, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return bad(name, "%s must be an integer, got %q", name, v)
			}
			*dst = &i
			return nil
		}
		switch name {
		case "model":
			req.Model = &v
		case "prompt":
			req.Prompt = &v
		case "size":
			req.Size = &v
		case "quality":
			req.Quality = &v
		case "background":
			req.Background = &v
		case "output_format":
			req.OutputFormat = &v
		case "response_format":
			req.ResponseFormat = &v
		case "n":
			err = intField(&req.N)
		case "output_compression":
			err = intField(&req.OutputCompression)
		case "partial_images":
			err = intField(&req.PartialImages)
		case "stream":
			bv, perr := strconv.ParseBool(strings.TrimSpace(v))
			if perr != nil {
				err = bad(name, "stream must be true or false, got %q", v)
			}
			req.Stream = &bv
		case "images[][file_id]", "mask[file_id]", "file_id":
			return nil, nil, bad(name, "file_id references are not supported: send the image itself")
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return req, files, nil
}

func wrapMultipart(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return err
	}
	return bad("", "malformed multipart body: %v", err)
}

// runImages validates the request, then answers it as JSON or a stream.
func (c *call) runImages(req *imageRequest, files *formFiles, edit bool) {
	job, err := c.buildJob(req, files, edit)
	if err != nil {
		c.answerErr(err)
		return
	}
	if job == nil {
		return // already answered (404)
	}
	if job.stream {
		c.streamImages(job)
		return
	}
	c.jsonImages(job)
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// buildJob checks every parameter (spec 4.4, 4.5 and section 7). A nil job
// with a nil error means the answer was already written.
func (c *call) buildJob(req *imageRequest, files *formFiles, edit bool) (*imageJob, error) {
	accept := c.fs.has(fAcceptInvalid)
	job := &imageJob{edit: edit, n: 1, partial: 0, format: "png", quality: "auto"}

	if req.Prompt == nil || strings.TrimSpace(*req.Prompt) == "" {
		if !accept {
			return nil, bad("prompt", "prompt is required")
		}
	} else {
		job.prompt = *req.Prompt
	}

	// Model: omitted → gen-image-2.5-flare (never gen-image-2).
	id := modelImageFlare
	if req.Model != nil && *req.Model != "" {
		id = *req.Model
	}
	m, found := c.lookupModel(id)
	if !found || m.Family != KindImage {
		c.modelNotFound(id)
		return nil, nil
	}
	job.model = m
	img2 := m.ID == modelImage2

	if req.N != nil {
		if *req.N < 1 || *req.N > maxImageN {
			return nil, bad("n", "n must be between 1 and %d", maxImageN)
		}
		job.n = *req.N
	}
	job.w, job.h, job.size = 1254, 1254, "1254x1254"
	if req.Size != nil {
		wh, ok := sizes[*req.Size]
		if !ok {
			return nil, bad("size", "size must be one of 1024x1024, 1536x1024, 1024x1536, auto; got %q", *req.Size)
		}
		job.w, job.h = wh[0], wh[1]
		job.size = fmt.Sprintf("%dx%d", wh[0], wh[1])
	}
	if req.Quality != nil {
		allowed := quality25
		if img2 {
			allowed = qualityImg2
		}
		if !contains(allowed, *req.Quality) {
			return nil, bad("quality", "quality must be one of %s for %s; got %q", strings.Join(allowed, ", "), m.ID, *req.Quality)
		}
		job.quality = *req.Quality
	}
	if req.OutputFormat != nil {
		if !contains([]string{"png", "jpeg", "webp"}, *req.OutputFormat) {
			return nil, bad("output_format", "output_format must be png, jpeg or webp; got %q", *req.OutputFormat)
		}
		job.format = *req.OutputFormat
	}
	if req.Background != nil {
		switch *req.Background {
		case "transparent":
			if job.format == "jpeg" {
				return nil, bad("background", "background transparent needs output_format png or webp")
			}
			job.transparent = true
		case "opaque", "auto":
		default:
			return nil, bad("background", "background must be transparent, opaque or auto; got %q", *req.Background)
		}
	}
	if req.OutputCompression != nil {
		v := *req.OutputCompression
		if v < 0 || v > 100 {
			return nil, bad("output_compression", "output_compression must be between 0 and 100")
		}
		if job.format != "png" { // PNG is lossless: the value does not apply
			job.compression = &v
		}
	}
	if req.ResponseFormat != nil && *req.ResponseFormat != "b64_json" {
		return nil, bad("response_format", "only response_format b64_json is supported")
	}
	job.stream = req.Stream != nil && *req.Stream
	if req.PartialImages != nil {
		p := *req.PartialImages
		if p < 0 || p > 3 {
			if !accept {
				return nil, bad("partial_images", "partial_images must be between 0 and 3")
			}
			p = min(max(p, 0), 3)
		}
		job.partial = p
	}

	if edit {
		if err := c.readEditInputs(job, req, files, img2); err != nil {
			return nil, err
		}
	} else if len(req.Images) > 0 || req.Mask != nil {
		return nil, bad("images", "image generation takes no reference images; use /v1/images/edits")
	}
	job.seed = job.hash()
	return job, nil
}

// readEditInputs decodes the reference images and the mask of an edit.
func (c *call) readEditInputs(job *imageJob, req *imageRequest, files *formFiles, img2 bool) error {
	accept := c.fs.has(fAcceptInvalid)
	var raws [][]byte
	var maskRaw []byte
	hasMask := false
	if files != nil {
		if len(req.Images) > 0 || req.Mask != nil {
			return bad("images", "multipart edits take image files, not images[].image_url")
		}
		raws = files.images
		maskRaw, hasMask = files.mask, files.hasMsk
	} else {
		for i, ref := range req.Images {
			if ref.FileID != nil {
				if accept {
					continue
				}
				return bad(fmt.Sprintf("images[%d].file_id", i), "images[].file_id is not supported: send image_url")
			}
			if ref.ImageURL == nil || *ref.ImageURL == "" {
				return bad(fmt.Sprintf("images[%d].image_url", i), "images[%d].image_url is required", i)
			}
			b, err := c.fetchImageURL(*ref.ImageURL, fmt.Sprintf("images[%d].image_url", i))
			if err != nil {
				return err
			}
			raws = append(raws, b)
		}
		if req.Mask != nil {
			switch {
			case req.Mask.FileID != nil:
				if !accept {
					return bad("mask.file_id", "mask.file_id is not supported: send mask.image_url")
				}
			case req.Mask.ImageURL == nil || *req.Mask.ImageURL == "":
				return bad("mask.image_url", "mask.image_url is required")
			default:
				b, err := c.fetchImageURL(*req.Mask.ImageURL, "mask.image_url")
				if err != nil {
					return err
				}
				maskRaw, hasMask = b, true
			}
		}
	}
	if len(raws) == 0 {
		if !accept {
			return bad("image", "an edit needs at least one reference image (image, image[] or images[].image_url)")
		}
		hasMask = false // nothing to mask: served like a generation
	}
	if img2 && len(raws) > 1 {
		return bad("image", "%s takes one reference image", modelImage2)
	}
	if img2 && hasMask {
		return bad("mask", "%s takes no mask", modelImage2)
	}
	for i, b := range raws {
		img, err := decodeInput(b)
		if err != nil {
			return bad("image", "reference image %d: %v", i, err)
		}
		job.refs = append(job.refs, inputImage{img: img, raw: b})
	}
	if hasMask {
		img, err := decodeInput(maskRaw)
		if err != nil {
			return bad("mask", "mask: %v", err)
		}
		if img.Bounds().Size() != job.refs[0].img.Bounds().Size() {
			return bad("mask", "mask is %v but the reference image is %v: they must have the same dimensions",
				img.Bounds().Size(), job.refs[0].img.Bounds().Size())
		}
		job.mask = &inputImage{img: img, raw: maskRaw}
	}
	return nil
}

// fetchImageURL reads a data URL or fetches an HTTPS URL.
func (c *call) fetchImageURL(s, param string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(s, "data:"); ok {
		meta, data, ok := strings.Cut(rest, ",")
		if !ok || !strings.HasSuffix(meta, ";base64") {
			return nil, bad(param, "%s: a data URL must have the form data:<media_type>;base64,<data>", param)
		}
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			if b, err = base64.RawStdEncoding.DecodeString(data); err != nil {
				return nil, bad(param, "%s: invalid base64 data", param)
			}
		}
		return b, nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, bad(param, "%s must be a data URL or an https URL", param)
	}
	ctx, cancel := context.WithTimeout(c.r.Context(), 60*time.Second)
	defer cancel()
	rq, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, bad(param, "%s: %v", param, err)
	}
	resp, err := c.g.client.Do(rq)
	if err != nil {
		return nil, bad(param, "%s: could not fetch the image: %v", param, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, bad(param, "%s: fetching the image gave HTTP %d", param, resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.g.maxBody+1))
	if err != nil {
		return nil, bad(param, "%s: could not read the image: %v", param, err)
	}
	if int64(len(b)) > c.g.maxBody {
		return nil, bad(param, "%s: the image is larger than %d bytes", param, c.g.maxBody)
	}
	return b, nil
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

// decodeImageBlock checks an Anthropic image block and returns its size and
// an input-token estimate, or an error message.
func decodeImageBlock(b contentBlock) (w, h, tokens int, errMsg string) {
	if b.Source == nil {
		return 0, 0, 0, "image block without source"
	}
	if b.Source.Type != "base64" {
		return 0, 0, 0, fmt.Sprintf("image source type %q is not supported (use base64)", b.Source.Type)
	}
	want := map[string]string{"image/png": "png", "image/jpeg": "jpeg", "image/webp": "webp"}[b.Source.MediaType]
	if want == "" {
		return 0, 0, 0, fmt.Sprintf("media_type %q is not supported (image/png, image/jpeg, image/webp)", b.Source.MediaType)
	}
	raw, err := base64.StdEncoding.DecodeString(b.Source.Data)
	if err != nil {
		return 0, 0, 0, "image data is not valid base64"
	}
	if got := imagery.Sniff(raw); got != want {
		return 0, 0, 0, fmt.Sprintf("media_type %s does not match the image data", b.Source.MediaType)
	}
	img, err := decodeInput(raw)
	if err != nil {
		return 0, 0, 0, err.Error()
	}
	sz := img.Bounds().Size()
	return sz.X, sz.Y, max(1, sz.X*sz.Y/750), ""
}

// hash derives the request's seed from what the picture shows: model,
// prompt, size, reference and mask bytes.
func (j *imageJob) hash() uint64 {
	h := fnv.New64a()
	put := func(s string) { h.Write([]byte(s)); h.Write([]byte{0}) }
	put(j.model.ID)
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

// imageCount applies fewer-images.
func (c *call) imageCount(j *imageJob) int {
	if c.fs.has(fFewerImages) && j.n >= 2 {
		return j.n - 1
	}
	return j.n
}

// render makes and encodes image i (preview ≥ 0 for previews, -1 final),
// applying the image faults, and returns its base64 text as sent.
func (c *call) render(j *imageJob, i, preview int) (string, error) {
	s := imagery.Scene{
		Prompt: j.prompt, Seed: j.seed + uint64(i), Width: j.w, Height: j.h,
		Transparent: j.transparent && !c.fs.has(fAlphaDropped), Preview: preview,
	}
	if !c.fs.has(fReferenceIgnored) {
		for _, r := range j.refs {
			s.References = append(s.References, r.img)
		}
		if j.mask != nil && len(j.refs) > 0 {
			s.Mask = j.mask.img
		}
	}
	if c.fs.has(fSizeMismatch) {
		s.Width, s.Height = max(j.w-512, 1), max(j.h-512, 1)
	}
	format := j.format
	if c.fs.has(fWrongFormat) {
		format = map[string]string{"png": "jpeg", "jpeg": "png", "webp": "png"}[format]
	}
	comp := j.compression
	if format == "png" {
		comp = nil
	}
	key := fmt.Sprintf("%x|%d|%dx%d|%v|%v|%d|%s|%v", s.Seed, len(s.References), s.Width, s.Height, s.Transparent, s.Mask != nil, s.Preview, format, ptrInt(comp))
	b, ok := c.g.cache.get(key)
	if !ok {
		var err error
		b, err = imagery.Encode(renderScene(s), format, comp)
		if err != nil {
			return "", err
		}
		c.g.cache.put(key, b)
	}
	if preview < 0 && c.fs.has(fUndecodable) {
		b = b[:len(b)/4]
	}
	enc := base64.StdEncoding.EncodeToString(b)
	if preview < 0 && c.fs.has(fBadBase64) {
		enc = enc[:len(enc)/2] + "*#!?" + enc[len(enc)/2:]
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

func (c *call) jsonImages(j *imageJob) {
	k := c.imageCount(j)
	data := []any{}
	for i := range k {
		b64, err := c.render(j, i, -1)
		if err != nil {
			c.fail(http.StatusInternalServerError, "could not encode the image")
			return
		}
		if c.r.Context().Err() != nil {
			return
		}
		data = append(data, map[string]any{"b64_json": b64, "generation_id": newUUID()})
	}
	body := map[string]any{
		"created": time.Now().Unix(), "background": j.backgroundOut(), "data": data,
		"output_format": j.format, "quality": j.quality, "size": j.size, "usage": j.usage(k),
	}
	if c.fs.has(fEmptyData) {
		body["data"] = []any{}
	}
	if c.fs.has(fErrorField) {
		body["error"] = map[string]any{"message": "image generation failed", "type": "server_error", "code": "generation_failed"}
	}
	if c.fs.has(fMissingField) {
		delete(body, "created")
	}
	if c.fs.has(fWrongType) {
		body["created"] = strconv.FormatInt(time.Now().Unix(), 10)
	}
	c.writeJSON(http.StatusOK, body)
}

func (c *call) streamImages(j *imageJob) {
	family := "image_generation"
	if j.edit {
		family = "image_edit"
	}
	if c.fs.has(fWrongEventFamily) {
		family = map[string]string{"image_generation": "image_edit", "image_edit": "image_generation"}[family]
	}
	k := c.imageCount(j)
	s := c.startSSE()
	for i := range k {
		previews := j.previewCount(i)
		if c.fs.has(fPreviewOverflow) {
			previews = j.partial + 1
		}
		for p := range previews {
			b64, err := c.render(j, i, min(p, 3))
			if err != nil {
				return
			}
			index := p
			if c.fs.has(fPreviewIndexOrder) {
				index = p + 1
			}
			ev := map[string]any{
				"type": family + ".partial_image", "b64_json": b64, "partial_image_index": index,
				"created_at": time.Now().Unix(), "size": j.size, "quality": j.quality,
				"background": j.backgroundOut(), "output_format": j.format,
			}
			if c.fs.has(fWrongType) {
				ev["partial_image_index"] = strconv.Itoa(p)
			}
			if c.fs.has(fMissingField) {
				delete(ev, "type")
			}
			if !s.send(family+".partial_image", ev, false) {
				return
			}
		}
		if c.fs.has(fImageNoCompleted) {
			continue
		}
		b64, err := c.render(j, i, -1)
		if err != nil {
			return
		}
		ev := map[string]any{
			"type": family + ".completed", "b64_json": b64, "generation_id": newUUID(),
			"created_at": time.Now().Unix(), "size": j.size, "quality": j.quality,
			"background": j.backgroundOut(), "output_format": j.format, "usage": j.usage(1),
		}
		if c.fs.has(fWrongType) && previews == 0 {
			ev["b64_json"] = []string{b64}
		}
		if c.fs.has(fMissingField) {
			delete(ev, "type")
		}
		if !s.send(family+".completed", ev, true) {
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
