"""skimage.color's label2rgb and named colours (skimage/color/colorlabel.py) over NumPy or CuPy.

Labels are ranked through a lookup table over their value range (one pass, not a sort) where the range is
small, and each pixel's colour is gathered and blended in blocks of pixels on the CPU engine's threads.
"""
from __future__ import annotations

import itertools

import numpy as np

from .._engine import engine_aware, xp_of
from .._rules import array_argument, as_image, img_as_float, supported_float_type
from ..morphology._footprints import warn_user
from ._colorconv import _run, gray2rgb, hsv2rgb, rgb2hsv

# The CSS named colours (hex), as scikit-image names them (without rebeccapurple and paleturquoise; its
# palevioletred and sandybrown differ from CSS's: those are its values); components rounded to 3
# significant digits, 0 and 1 as ints.
_CSS = """
aliceblue:f0f8ff antiquewhite:faebd7 aqua:00ffff aquamarine:7fffd4 azure:f0ffff beige:f5f5dc bisque:ffe4c4
black:000000 blanchedalmond:ffebcd blue:0000ff blueviolet:8a2be2 brown:a52a2a burlywood:deb887 cadetblue:5f9ea0
chartreuse:7fff00 chocolate:d2691e coral:ff7f50 cornflowerblue:6495ed cornsilk:fff8dc crimson:dc143c cyan:00ffff
darkblue:00008b darkcyan:008b8b darkgoldenrod:b8860b darkgray:a9a9a9 darkgreen:006400 darkgrey:a9a9a9
darkkhaki:bdb76b darkmagenta:8b008b darkolivegreen:556b2f darkorange:ff8c00 darkorchid:9932cc darkred:8b0000
darksalmon:e9967a darkseagreen:8fbc8f darkslateblue:483d8b darkslategray:2f4f4f darkslategrey:2f4f4f
darkturquoise:00ced1 darkviolet:9400d3 deeppink:ff1493 deepskyblue:00bfff dimgray:696969 dimgrey:696969
dodgerblue:1e90ff firebrick:b22222 floralwhite:fffaf0 forestgreen:228b22 fuchsia:ff00ff gainsboro:dcdcdc
ghostwhite:f8f8ff gold:ffd700 goldenrod:daa520 gray:808080 green:008000 greenyellow:adff2f grey:808080
honeydew:f0fff0 hotpink:ff69b4 indianred:cd5c5c indigo:4b0082 ivory:fffff0 khaki:f0e68c lavender:e6e6fa
lavenderblush:fff0f5 lawngreen:7cfc00 lemonchiffon:fffacd lightblue:add8e6 lightcoral:f08080 lightcyan:e0ffff
lightgoldenrodyellow:fafad2 lightgray:d3d3d3 lightgreen:90ee90 lightgrey:d3d3d3 lightpink:ffb6c1
lightsalmon:ffa07a lightseagreen:20b2aa lightskyblue:87cefa lightslategray:778899 lightslategrey:778899
lightsteelblue:b0c4de lightyellow:ffffe0 lime:00ff00 limegreen:32cd32 linen:faf0e6 magenta:ff00ff maroon:800000
mediumaquamarine:66cdaa mediumblue:0000cd mediumorchid:ba55d3 mediumpurple:9370db mediumseagreen:3cb371
mediumslateblue:7b68ee mediumspringgreen:00fa9a mediumturquoise:48d1cc mediumvioletred:c71585
midnightblue:191970 mintcream:f5fffa mistyrose:ffe4e1 moccasin:ffe4b5 navajowhite:ffdead navy:000080
oldlace:fdf5e6 olive:808000 olivedrab:6b8e23 orange:ffa500 orangered:ff4500 orchid:da70d6 palegoldenrod:eee8aa
palegreen:98fb98 palevioletred:afeeee papayawhip:ffefd5 peachpuff:ffdab9 peru:cd853f pink:ffc0cb plum:dda0dd
powderblue:b0e0e6 purple:800080 red:ff0000 rosybrown:bc8f8f royalblue:4169e1 saddlebrown:8b4513 salmon:fa8072
sandybrown:faa460 seagreen:2e8b57 seashell:fff5ee sienna:a0522d silver:c0c0c0 skyblue:87ceeb slateblue:6a5acd
slategray:708090 slategrey:708090 snow:fffafa springgreen:00ff7f steelblue:4682b4 tan:d2b48c teal:008080
thistle:d8bfd8 tomato:ff6347 turquoise:40e0d0 violet:ee82ee wheat:f5deb3 white:ffffff whitesmoke:f5f5f5
yellow:ffff00 yellowgreen:9acd32
"""


def _component(hexpair):
    v = float(f"{int(hexpair, 16) / 255:.3g}")
    return int(v) if v in (0.0, 1.0) else v


color_dict = {name: tuple(_component(h[i:i + 2]) for i in (0, 2, 4))
              for name, h in (item.split(":") for item in _CSS.split())}

DEFAULT_COLORS = ("red", "blue", "yellow", "magenta", "green", "indigo", "darkorange", "cyan", "pink",
                  "yellowgreen")

# label value ranges up to this (or twice the pixel count) are ranked by a lookup table, larger ones sorted
_LUT_RANGE = 1 << 22


def _rgb_vector(color):
    if isinstance(color, str):
        color = color_dict[color]
    return np.array(color[:3])


def _ranks(xp, label):
    """(sorted unique values, each pixel's index into them) of an integer or float label image."""
    if label.dtype == bool:
        label = label.view(np.uint8)   # indices, not a mask
    if label.dtype.kind in "iu" and label.size:
        lo, hi = int(label.min()), int(label.max())
        if hi - lo <= max(_LUT_RANGE, 2 * label.size):
            shifted = label.astype(np.intp) - lo if lo else label
            present = xp.bincount(shifted.ravel(), minlength=hi - lo + 1) > 0
            rank = xp.cumsum(present) - 1
            return xp.nonzero(present)[0] + lo, rank[shifted]
    values, inverse = xp.unique(label, return_inverse=True)
    return values, inverse.reshape(label.shape)


@engine_aware("label", "image", native=False)   # a NumPy scalar label stays one (it fails as there)
def label2rgb(label, image=None, colors=None, alpha=0.3, bg_label=0, bg_color=(0, 0, 0), image_alpha=1,
              kind="overlay", *, saturation=0, channel_axis=-1):
    xp = xp_of(label, image)
    array_argument(label, "shape")   # scikit-image reads label.shape (lists fail)
    if image is not None:
        image = xp.moveaxis(as_image(image), channel_axis, -1)
    if kind == "overlay":
        rgb = _overlay(xp, label, image, colors, alpha, bg_label, bg_color, image_alpha, saturation)
    elif kind == "avg":
        rgb = _avg(xp, label, image, bg_label, bg_color)
    else:
        raise ValueError("`kind` must be either 'overlay' or 'avg'.")
    return xp.moveaxis(rgb, -1, channel_axis)


def _overlay(xp, label, image, colors, alpha, bg_label, bg_color, image_alpha, saturation):
    if not 0 <= saturation <= 1:
        warn_user(f"saturation must be in range [0, 1], got {saturation}")
    colors = [_rgb_vector(c) for c in (DEFAULT_COLORS if colors is None else colors)]
    if image is None:
        alpha = 1   # colours alone: scikit-image blends them with zeros
    else:
        if image.shape[:label.ndim] != label.shape or image.ndim > label.ndim + 1:
            raise ValueError("`image` and `label` must be the same shape")
        if image.ndim == label.ndim + 1 and image.shape[-1] != 3:
            raise ValueError("`image` must be RGB (image.shape[-1] must be 3).")
        if image.min() < 0:
            warn_user("Negative intensities in `image` are not supported")
        image = img_as_float(image).astype(supported_float_type(image.dtype), copy=False)
        if image.ndim > label.ndim:
            if saturation == 0:
                # hsv2rgb of rgb2hsv with the saturation 0 is the value (the maximum channel; 0 for NaN) thrice
                v = rgb2hsv(image)[..., 2]
                image = gray2rgb(v)
            else:
                hsv = rgb2hsv(image)
                hsv[..., 1] *= saturation
                image = hsv2rgb(hsv)
        elif image.ndim == label.ndim:
            image = gray2rgb(image)
        if image_alpha != 1:
            image = image * image_alpha + (1 - image_alpha)

    offset = min(label.min(), bg_label)
    if xp is not np and hasattr(offset, "item"):
        offset = offset.item()   # a CuPy 0-d array as the host scalar NumPy's min() gives (compared on the host)
    if offset != 0:
        label = label - offset   # scikit-image's arithmetic (and its errors) on the caller's dtype
        bg_label -= offset
    new_type = np.min_scalar_type(int(label.max()))
    if new_type == bool:
        new_type = np.uint8
    elif new_type == object:   # labels beyond int64 (huge floats): scikit-image then indexes with objects
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    label = label.astype(new_type)
    if isinstance(label, np.generic):   # a 0-d label shifted by an offset is a NumPy scalar: no writable .flat
        raise AttributeError("attribute 'flat' of 'numpy.generic' objects is not writable")
    values, ranks = _ranks(xp, label)
    values = np.asarray(values.get() if hasattr(values, "get") else values)
    # colour 0 is the background's (bg_color); the other labels take the colours in turn, in label order
    at = np.flatnonzero(values == bg_label)
    index = np.arange(1, len(values) + 1)
    if len(at):
        index = np.where(np.arange(len(values)) < at[0], index, index - 1)
        index[at[0]] = 0
    cycle = itertools.chain([_rgb_vector((0, 0, 0) if bg_color is None else bg_color)], itertools.cycle(colors))
    table = np.stack([c for _, c in zip(range(int(index.max()) + 1), cycle)])
    lut = xp.asarray(table[index])   # rank -> colour
    # scikit-image compares its mapped colour indices (not the labels) with bg_label here: the pixels whose
    # colour index equals bg_label show the image
    show_image = xp.asarray(index == bg_label) if len(at) and bg_color is None else None
    dtype = (table[:1] * alpha + np.zeros((1, 3), np.float64 if image is None else image.dtype) * (1 - alpha)).dtype
    out = xp.empty(label.shape + (3,), dtype)

    def blend(r, o, *img):
        picked = lut[r[:, 0]]
        if not img:
            o[...] = picked * alpha + xp.zeros_like(picked, dtype=np.float64) * (1 - alpha)
            if show_image is not None:
                o[show_image[r[:, 0]]] = 0
            return
        o[...] = picked * alpha + img[0] * (1 - alpha)
        if show_image is not None:
            bg = show_image[r[:, 0]]
            o[bg] = img[0][bg]

    _run(blend, ranks[..., None], out, *(() if image is None else (image,)))
    return out


def _avg(xp, label, image, bg_label, bg_color):
    out = xp.zeros(label.shape + (3,), dtype=image.dtype)
    if label.ndim == 0:   # scikit-image finds each label's pixels with nonzero()
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.")
    if not label.size:
        return out
    values, ranks = _ranks(xp, label)
    flat = ranks.ravel()
    counts = xp.bincount(flat, minlength=len(values))
    pixels = image.reshape(flat.size, -1)
    means = xp.stack([xp.bincount(flat, weights=pixels[:, c], minlength=len(values)) for c in
                      range(pixels.shape[1])], axis=-1) / counts[:, None]
    colours = xp.empty((len(values), 3), out.dtype)
    colours[...] = means   # a gray image's mean fills the 3 channels; integer images truncate as assigned
    bg = xp.nonzero(values == bg_label)[0]
    if bg.size:
        colours[bg] = xp.asarray(bg_color)
    out[...] = colours[ranks]
    return out
