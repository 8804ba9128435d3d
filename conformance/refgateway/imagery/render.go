// Package imagery synthesises deterministic pictures for the reference
// gateway and encodes/decodes them as png, jpeg and webp.
//
// The pictures carry no meaning; they only have to be (1) cheap to make at
// 1024²–1536×1024 under -race, (2) a pure function of the request so that
// tests can compare runs, (3) visibly different for different prompts and
// seeds, and (4) visibly derived from the reference images of an edit so a
// conformance test can tell an edit that ignored its input.
package imagery

import (
	"encoding/binary"
	"hash/fnv"
	"image"
	"image/color"
	"math"
)

// Scene describes one picture. Everything is deterministic: same Scene → same pixels.
type Scene struct {
	Prompt        string
	Seed          uint64
	Width, Height int
	// References are the input images of an edit. The edited region is a
	// blend of the (averaged) references and the synthesised picture, so the
	// output correlates with the reference pixels.
	References []image.Image
	// Mask marks the edit region: where its alpha is 0 the picture is
	// edited, elsewhere the first reference is kept unchanged. It is scaled
	// (nearest neighbour) to the output size. Ignored without References.
	Mask image.Image
	// Transparent gives a real alpha channel: an opaque round subject with an
	// anti-aliased edge on a fully transparent (alpha 0) background.
	Transparent bool
	// Preview is -1 for the final image, 0..3 for a streaming preview. A
	// preview is the same scene rendered at a coarser resolution (blocks of
	// 32, 16, 8, 4 pixels for 0..3) and scaled back up, so it has the right
	// size but is visibly rougher, and gets finer with each index.
	Preview int
}

// editWeight is the share (out of 256) of the reference in an edited pixel.
// Above one half so the output correlates clearly with the reference, below
// 256 so the synthesised picture (and thus the prompt) still shows.
const editWeight = 160

// Render draws the scene. It never fails: a non-positive size gives an empty
// image, any negative Preview is the final image and a Preview above 3 is
// treated as 3. The caller bounds the size (the image is allocated whole).
//
// Output is identical across runs and processes of one build. Parameters
// are derived with float64 math, so another CPU architecture (where the
// compiler may fuse multiply-adds) could in principle round differently.
func Render(s Scene) *image.NRGBA {
	w, h := s.Width, s.Height
	if w <= 0 || h <= 0 {
		return image.NewNRGBA(image.Rect(0, 0, 0, 0))
	}
	if s.Preview >= 0 {
		block := 32 >> min(s.Preview, 3)
		small := s
		small.Preview = -1
		small.Width = (w + block - 1) / block
		small.Height = (h + block - 1) / block
		// Rendering small and scaling up is both the cheapest way to make a
		// preview and what makes it look coarse.
		return resample(Render(small), w, h)
	}

	p := newParams(s.Prompt, s.Seed, w, h)
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	p.paintBackground(img)
	for i := range p.discs {
		p.discs[i].paint(img)
	}
	if s.Transparent {
		p.cutSubject(img)
	}
	if len(s.References) > 0 {
		applyEdit(img, s.References, s.Mask)
	}
	return img
}

// rng is splitmix64: tiny, fast, and fully specified, so the parameters
// derived from a prompt do not depend on math/rand's algorithm choices.
type rng struct{ state uint64 }

func (r *rng) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// float returns a value in [lo, hi).
func (r *rng) float(lo, hi float64) float64 {
	return lo + (hi-lo)*float64(r.next()>>11)/(1<<53)
}

// hue returns a saturated colour for hue h in [0,1) (HSV with S=0.75, V=0.95).
func hue(h float64) [3]int32 {
	h = h - math.Floor(h)
	const v, s = 0.95, 0.75
	sector := h * 6
	i := int(sector)
	f := sector - float64(i)
	p, q, t := v*(1-s), v*(1-s*f), v*(1-s*(1-f))
	var r, g, b float64
	switch i % 6 {
	case 0:
		r, g, b = v, t, p
	case 1:
		r, g, b = q, v, p
	case 2:
		r, g, b = p, v, t
	case 3:
		r, g, b = p, q, v
	case 4:
		r, g, b = t, p, v
	default:
		r, g, b = v, p, q
	}
	return [3]int32{int32(r*255 + 0.5), int32(g*255 + 0.5), int32(b*255 + 0.5)}
}

type disc struct {
	// Coordinates are doubled (2x+1 is a pixel centre) so that circle tests
	// stay in integers; radii are in the same doubled unit.
	cx2, cy2   int64
	in2, out2  int64   // squared inner/outer radius of the anti-aliased band
	rOut, band float64 // outer radius and band width, doubled units
	col        [3]int32
	opacity    int32 // 0..256
}

type params struct {
	w, h int
	// Background gradient: t = gx*x + gy*y + g0 in 16.16 fixed point, 0..1<<16.
	gx, gy, g0 int64
	c0, c1     [3]int32
	// Stripes: lighten where ((sx*x + sy*y) >> 16) is odd.
	sx, sy  int64
	stripeK int32 // 0..256 lightening strength
	discs   [5]disc
	subject disc // Transparent: the opaque region
}

// newParams derives every free parameter from an FNV-1a hash of the prompt
// and the seed. Geometry is expressed relative to the image size so that a
// preview (rendered small) is a scaled version of the final image.
func newParams(prompt string, seed uint64, w, h int) *params {
	hs := fnv.New64a()
	hs.Write([]byte(prompt))
	var sb [9]byte // 0 separator, then the seed: "ab"+seed ≠ "a"+"b…"
	binary.LittleEndian.PutUint64(sb[1:], seed)
	hs.Write(sb[:])
	r := &rng{state: hs.Sum64()}

	p := &params{w: w, h: h}
	fw, fh := float64(w), float64(h)
	minDim := math.Min(fw, fh)

	h0 := r.float(0, 1)
	p.c0 = hue(h0)
	p.c1 = hue(h0 + r.float(0.25, 0.75))

	// Gradient along direction θ across the normalised unit square.
	theta := r.float(0, 2*math.Pi)
	cs, sn := math.Cos(theta), math.Sin(theta)
	norm := math.Abs(cs) + math.Abs(sn) // projection range of the square is ±norm/2
	// t(x,y) = 0.5 + ((x+0.5)/w - 0.5)*cs/norm + ((y+0.5)/h - 0.5)*sn/norm
	const one = 1 << 16
	ax, ay := cs/norm/fw, sn/norm/fh
	p.gx = int64(math.Round(ax * one))
	p.gy = int64(math.Round(ay * one))
	p.g0 = int64(math.Round((0.5 + (0.5/fw-0.5)*cs/norm + (0.5/fh-0.5)*sn/norm) * one))

	phi := r.float(0, 2*math.Pi)
	period := r.float(0.03, 0.09) * math.Max(fw, fh)
	p.sx = int64(math.Round(math.Cos(phi) / period * one))
	p.sy = int64(math.Round(math.Sin(phi) / period * one))
	p.stripeK = int32(r.float(30, 70))

	// Anti-aliasing band: about 1.5 px at full size, never below 1 px.
	aa := math.Max(2, 3*minDim/1024) // doubled units
	for i := range p.discs {
		cx := r.float(0.1, 0.9) * fw
		cy := r.float(0.1, 0.9) * fh
		rad := r.float(0.06, 0.2) * minDim
		p.discs[i] = makeDisc(cx, cy, rad, aa, hue(r.float(0, 1)), int32(r.float(140, 220)))
	}
	p.subject = makeDisc(fw/2, fh/2, 0.36*minDim, aa, [3]int32{}, 256)
	return p
}

func makeDisc(cx, cy, rad, aa float64, col [3]int32, opacity int32) disc {
	rOut := 2*rad + aa/2
	rIn := math.Max(0, 2*rad-aa/2)
	return disc{
		cx2: int64(math.Round(2 * cx)), cy2: int64(math.Round(2 * cy)),
		in2: int64(rIn * rIn), out2: int64(math.Ceil(rOut * rOut)),
		rOut: rOut, band: rOut - rIn,
		col: col, opacity: opacity,
	}
}

// bandCoverage turns a squared distance inside a disc's anti-aliasing band
// into coverage 0..256. Small enough to be inlined into the norace kernels.
func bandCoverage(d2 int64, rOut, band float64) int32 {
	c := (rOut - math.Sqrt(float64(d2))) / band
	return int32(min(max(c, 0), 1) * 256)
}

// bounds returns the pixel columns [x0,x1) and rows [y0,y1) the disc can touch.
func (d *disc) bounds(w, h int) (x0, x1, y0, y1 int) {
	r := int(math.Ceil(d.rOut/2)) + 1
	cx, cy := int(d.cx2/2), int(d.cy2/2)
	return max(0, cx-r), min(w, cx+r+1), max(0, cy-r), min(h, cy+r+1)
}

// A note on //go:norace. The gateway's tests run under -race, where every
// load and store to the heap becomes a call into the race runtime; at 1–2
// million pixels × several byte accesses that turned a 7 ms render into
// 135 ms. The kernels marked norace only write images this package has just
// allocated and not yet handed to anyone (and read the caller's references,
// which the caller must not mutate concurrently anyway), so the race
// detector has nothing to find in them. They avoid non-inlined calls
// because a callee is instrumented regardless of the caller's directive.

// paintBackground fills img with the gradient and stripes. Colours come
// from a 257-step table per stripe state (the gradient has at most 255
// levels per channel anyway), written as one 32-bit store per pixel.
//
//go:norace
func (p *params) paintBackground(img *image.NRGBA) {
	const one = 1 << 16
	var lut [2][257]uint32
	k := p.stripeK
	for i := range 257 {
		var c [3]int32
		for ch := range 3 {
			c[ch] = p.c0[ch] + (p.c1[ch]-p.c0[ch])*int32(i)>>8
		}
		lut[0][i] = uint32(c[0]) | uint32(c[1])<<8 | uint32(c[2])<<16 | 0xff<<24
		for ch := range 3 {
			c[ch] += (255 - c[ch]) * k >> 8
		}
		lut[1][i] = uint32(c[0]) | uint32(c[1])<<8 | uint32(c[2])<<16 | 0xff<<24
	}
	for y := 0; y < p.h; y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+4*p.w]
		t := p.gy*int64(y) + p.g0
		s := p.sy * int64(y)
		for o := 0; o < len(row); o += 4 {
			c := lut[(s>>16)&1][min(max(t, 0), one)>>8]
			binary.LittleEndian.PutUint32(row[o:o+4], c)
			t += p.gx
			s += p.sx
		}
	}
}

//go:norace
func (d *disc) paint(img *image.NRGBA) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	x0, x1, y0, y1 := d.bounds(w, h)
	cr, cg, cb := d.col[0], d.col[1], d.col[2]
	for y := y0; y < y1; y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+4*w]
		dy := int64(2*y+1) - d.cy2
		dy2 := dy * dy
		for x := x0; x < x1; x++ {
			dx := int64(2*x+1) - d.cx2
			d2 := dx*dx + dy2
			if d2 >= d.out2 {
				continue
			}
			a := d.opacity
			if d2 > d.in2 {
				a = bandCoverage(d2, d.rOut, d.band) * a >> 8
			}
			px := row[4*x : 4*x+3 : 4*x+3]
			r, g, b := int32(px[0]), int32(px[1]), int32(px[2])
			px[0] = uint8(r + (cr-r)*a>>8)
			px[1] = uint8(g + (cg-g)*a>>8)
			px[2] = uint8(b + (cb-b)*a>>8)
		}
	}
}

// cutSubject makes everything outside the subject disc fully transparent
// (alpha 0, colour zeroed so encoders compress it well) and keeps the disc
// opaque, with intermediate alpha only on its anti-aliased rim.
//
//go:norace
func (p *params) cutSubject(img *image.NRGBA) {
	d := &p.subject
	x0, x1, y0, y1 := d.bounds(p.w, p.h)
	for y := 0; y < p.h; y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+4*p.w]
		if y < y0 || y >= y1 {
			clear(row)
			continue
		}
		clear(row[:4*x0])
		clear(row[4*x1:])
		dy := int64(2*y+1) - d.cy2
		dy2 := dy * dy
		for x := x0; x < x1; x++ {
			dx := int64(2*x+1) - d.cx2
			d2 := dx*dx + dy2
			px := row[4*x : 4*x+4 : 4*x+4]
			switch {
			case d2 >= d.out2:
				px[0], px[1], px[2], px[3] = 0, 0, 0, 0
			case d2 > d.in2:
				c := bandCoverage(d2, d.rOut, d.band)
				if c == 0 {
					px[0], px[1], px[2], px[3] = 0, 0, 0, 0
				} else {
					px[3] = uint8(min(c, 255))
				}
			}
		}
	}
}

// applyEdit blends the references into img. Without a mask the whole picture
// is edited; with one, pixels whose mask alpha is not 0 are the first
// reference unchanged. Edited pixels keep img's alpha (so Transparent still
// cuts out the subject) and mix the averaged reference colour with img's.
func applyEdit(img *image.NRGBA, refs []image.Image, mask image.Image) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	scaled := make([]*image.NRGBA, 0, len(refs))
	for _, r := range refs {
		if r == nil || r.Bounds().Empty() {
			continue
		}
		scaled = append(scaled, resample(r, w, h))
	}
	if len(scaled) == 0 {
		return
	}
	var m *image.NRGBA
	if mask != nil && !mask.Bounds().Empty() {
		m = resample(mask, w, h)
	}
	blendRefs(img, scaled, m)
}

//go:norace
func blendRefs(img *image.NRGBA, refs []*image.NRGBA, m *image.NRGBA) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	n := int32(len(refs))
	first := refs[0]
	for y := 0; y < h; y++ {
		off := y * img.Stride // every image here is freshly allocated: same stride
		row := img.Pix[off : off+4*w]
		r0 := first.Pix[off : off+4*w]
		var mrow []uint8
		if m != nil {
			mrow = m.Pix[off : off+4*w]
		}
		for o := 0; o < len(row); o += 4 {
			px := row[o : o+4 : o+4]
			if mrow != nil && mrow[o+3] != 0 {
				q := r0[o : o+4 : o+4]
				px[0], px[1], px[2], px[3] = q[0], q[1], q[2], q[3]
				continue
			}
			rr, rg, rb := int32(r0[o]), int32(r0[o+1]), int32(r0[o+2])
			if n > 1 {
				for _, r := range refs[1:] {
					q := r.Pix[off+o : off+o+3 : off+o+3]
					rr, rg, rb = rr+int32(q[0]), rg+int32(q[1]), rb+int32(q[2])
				}
				rr, rg, rb = rr/n, rg/n, rb/n
			}
			px[0] = uint8((rr*editWeight + int32(px[0])*(256-editWeight)) >> 8)
			px[1] = uint8((rg*editWeight + int32(px[1])*(256-editWeight)) >> 8)
			px[2] = uint8((rb*editWeight + int32(px[2])*(256-editWeight)) >> 8)
		}
	}
}

// resample converts src to an NRGBA of size w×h by nearest-neighbour
// sampling (a plain conversion when the size is unchanged). Decoder output
// types are read straight from their pixel buffers: image.Image.At costs an
// interface call and often an allocation per pixel.
func resample(src image.Image, w, h int) *image.NRGBA {
	b := src.Bounds()
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	sw, sh := b.Dx(), b.Dy()
	xs := make([]int, w)
	for x := range xs {
		// Sample at pixel centres: exact for integer scale factors.
		xs[x] = b.Min.X + (2*x+1)*sw/(2*w)
	}
	var pal *[256][4]uint8
	if p, ok := src.(*image.Paletted); ok {
		pal = new([256][4]uint8)
		for i, c := range p.Palette[:min(len(p.Palette), 256)] {
			n := color.NRGBAModel.Convert(c).(color.NRGBA)
			pal[i] = [4]uint8{n.R, n.G, n.B, n.A}
		}
	}
	prevSY := math.MinInt
	for y := 0; y < h; y++ {
		sy := b.Min.Y + (2*y+1)*sh/(2*h)
		row := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		if sy == prevSY {
			copy(row, dst.Pix[(y-1)*dst.Stride:(y-1)*dst.Stride+4*w])
			continue
		}
		prevSY = sy
		readRow(src, pal, sy, xs, row)
	}
	return dst
}

// readRow writes the non-premultiplied colours of src at (xs[i], sy) into
// row[4i:4i+4]. Decoder output types have a kernel each, reading their
// pixel buffers; any other type goes through At.
//
//go:norace
func readRow(src image.Image, pal *[256][4]uint8, sy int, xs []int, row []uint8) {
	switch s := src.(type) {
	case *image.NRGBA:
		readRowNRGBA(s, sy, xs, row)
	case *image.RGBA:
		readRowRGBA(s, sy, xs, row)
	case *image.YCbCr:
		readRowYCbCr(s, nil, sy, xs, row)
	case *image.NYCbCrA:
		ao := (sy-s.Rect.Min.Y)*s.AStride - s.Rect.Min.X
		readRowYCbCr(&s.YCbCr, s.A[ao+s.Rect.Min.X:ao+s.Rect.Max.X], sy, xs, row)
	case *image.Gray:
		readRowGray(s, sy, xs, row)
	case *image.Paletted:
		readRowPaletted(s, pal, sy, xs, row)
	default:
		for i, x := range xs {
			c := color.NRGBAModel.Convert(src.At(x, sy)).(color.NRGBA)
			px := row[4*i : 4*i+4 : 4*i+4]
			px[0], px[1], px[2], px[3] = c.R, c.G, c.B, c.A
		}
	}
}

// readRowNRGBA is readRow for NRGBA: a copy of the row when no column is
// skipped.
//
//go:norace
func readRowNRGBA(s *image.NRGBA, sy int, xs []int, row []uint8) {
	base := (sy-s.Rect.Min.Y)*s.Stride - 4*s.Rect.Min.X
	if len(xs) == s.Rect.Dx() {
		i := base + 4*s.Rect.Min.X
		copy(row, s.Pix[i:i+len(row)])
		return
	}
	for i, x := range xs {
		q := s.Pix[base+4*x : base+4*x+4 : base+4*x+4]
		px := row[4*i : 4*i+4 : 4*i+4]
		px[0], px[1], px[2], px[3] = q[0], q[1], q[2], q[3]
	}
}

// readRowRGBA is readRow for premultiplied RGBA.
//
//go:norace
func readRowRGBA(s *image.RGBA, sy int, xs []int, row []uint8) {
	base := (sy-s.Rect.Min.Y)*s.Stride - 4*s.Rect.Min.X
	for i, x := range xs {
		q := s.Pix[base+4*x : base+4*x+4 : base+4*x+4]
		px := row[4*i : 4*i+4 : 4*i+4]
		switch a := uint32(q[3]); a {
		case 0:
			px[0], px[1], px[2], px[3] = 0, 0, 0, 0
		case 255:
			px[0], px[1], px[2], px[3] = q[0], q[1], q[2], 255
		default:
			// Same 16-bit arithmetic as color.NRGBAModel, so results
			// match At-based conversion exactly.
			a16 := a * 0x101
			px[0] = uint8(uint32(q[0]) * 0x101 * 0xffff / a16 >> 8)
			px[1] = uint8(uint32(q[1]) * 0x101 * 0xffff / a16 >> 8)
			px[2] = uint8(uint32(q[2]) * 0x101 * 0xffff / a16 >> 8)
			px[3] = uint8(a)
		}
	}
}

// readRowYCbCr is readRow for YCbCr, and for NYCbCrA with alpha, the alpha
// row of sy (nil: opaque).
//
//go:norace
func readRowYCbCr(yc *image.YCbCr, alpha []uint8, sy int, xs []int, row []uint8) {
	for i, x := range xs {
		yi, ci := yc.YOffset(x, sy), yc.COffset(x, sy)
		// JFIF YCbCr→RGB in 16.16 fixed point (as image/color does,
		// written out here so the kernel makes no calls).
		yy := int32(yc.Y[yi]) * 0x10101
		cb, cr := int32(yc.Cb[ci])-128, int32(yc.Cr[ci])-128
		r := (yy + 91881*cr) >> 16
		g := (yy - 22554*cb - 46802*cr) >> 16
		b := (yy + 116130*cb) >> 16
		px := row[4*i : 4*i+4 : 4*i+4]
		px[0], px[1], px[2] = uint8(min(max(r, 0), 255)), uint8(min(max(g, 0), 255)), uint8(min(max(b, 0), 255))
		px[3] = 255
		if alpha != nil {
			a := alpha[x-yc.Rect.Min.X]
			px[3] = a
			if a == 0 {
				px[0], px[1], px[2] = 0, 0, 0 // as NRGBA conversion does
			}
		}
	}
}

// readRowGray is readRow for Gray.
//
//go:norace
func readRowGray(s *image.Gray, sy int, xs []int, row []uint8) {
	base := (sy-s.Rect.Min.Y)*s.Stride - s.Rect.Min.X
	for i, x := range xs {
		v := s.Pix[base+x]
		px := row[4*i : 4*i+4 : 4*i+4]
		px[0], px[1], px[2], px[3] = v, v, v, 255
	}
}

// readRowPaletted is readRow for Paletted, with its palette converted to
// NRGBA in pal.
//
//go:norace
func readRowPaletted(s *image.Paletted, pal *[256][4]uint8, sy int, xs []int, row []uint8) {
	base := (sy-s.Rect.Min.Y)*s.Stride - s.Rect.Min.X
	for i, x := range xs {
		c := &pal[s.Pix[base+x]]
		px := row[4*i : 4*i+4 : 4*i+4]
		px[0], px[1], px[2], px[3] = c[0], c[1], c[2], c[3]
	}
}
