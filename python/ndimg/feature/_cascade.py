"""skimage.feature.Cascade (0.26): the MB-LBP cascade classifier of an OpenCV XML file. The sliding windows of
each scale are classified on the image's engine (cpp/src/feature/cascade.*); the XML parsing, the scales and the
grouping of the detections (a few hundred rectangles) run on the host, as scikit-image's."""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np

from .. import _core
from .._engine import CUDA, engine_for, stream_ptr, to_working, xp_of


def _c_round(x):
    """scikit-image's round of a float32: away from zero at .5, then truncated, in float32."""
    x = np.float32(x)
    return int(x + np.float32(0.5)) if x > 0 else int(x - np.float32(0.5))


def _intersection_score(a, b):
    """Intersection area over the smaller area (float32) of two (r, c, width, height) rectangles."""
    inter = max(0, min(a[1] + a[2], b[1] + b[2]) - max(a[1], b[1])) * \
        max(0, min(a[0] + a[3], b[0] + b[3]) - max(a[0], b[0]))
    area_a, area_b = np.float32(a[3] * a[2]), np.float32(b[3] * b[2])
    return np.float32(inter) / (area_a if area_b > area_a else area_b)


def _group_detections(detections, intersection_score_threshold, min_neighbor_number):
    """scikit-image's greedy clustering: each detection joins the cluster whose mean rectangle it overlaps
    best (above the threshold), else starts one; clusters of at least `min_neighbor_number` give their mean."""
    threshold = np.float32(intersection_score_threshold)
    clusters = []   # [r_sum, c_sum, width_sum, height_sum, count]

    def mean(k):   # C int division of non-negative sums
        return tuple(int(v) // k[4] for v in k[:4])

    for i, d in enumerate(detections):
        if i == 0:
            clusters.append(list(d) + [1])
            continue
        best, best_k = threshold, None
        for k, cl in enumerate(clusters):
            score = _intersection_score(d, mean(cl))
            if score > best:
                best, best_k = score, k
        if best_k is None:
            clusters.append(list(d) + [1])
        else:
            cl = clusters[best_k]
            for j in range(4):
                cl[j] += d[j]
            cl[4] += 1
    return [dict(zip(('r', 'c', 'width', 'height'), mean(cl)))
            for cl in clusters if cl[4] >= min_neighbor_number]


class Cascade:
    """Cascade of MB-LBP boosted classifiers for object detection (skimage.feature.Cascade), loaded from an
    OpenCV XML file (a path or a file object). `eps` lowers each stage's threshold."""

    def __init__(self, xml_file, eps=1e-5):
        self._load_xml(xml_file, eps)

    def _load_xml(self, xml_file, eps=1e-5):
        tree = ET.parse(xml_file)
        features = tree.find('.//features')
        stages = tree.find('.//stages')
        stages_number = int(tree.find('.//stageNum').text)
        window_height = int(tree.find('.//height').text)
        window_width = int(tree.find('.//width').text)
        blocks = np.array([[int(v) for v in f[0].text.split()][:4] for f in features], dtype=np.int64).reshape(-1, 4)
        blocks = blocks[:, [1, 0, 2, 3]]   # the file's (x, y, width, height) as (r, c, width, height)
        feature_ids, leaves, luts, stage_rows, thresholds = [], [], [], [], []
        for s in range(stages_number):
            stage = stages[s]
            count = int(stage.find('maxWeakCount').text)
            stage_rows.append((len(feature_ids), count))
            thresholds.append(float(stage.find('stageThreshold').text))
            weak = stage.find('weakClassifiers')
            for w in range(count):
                leaf = [float(v) for v in weak[w].find('leafValues').text.split()]
                nodes = weak[w].find('internalNodes').text.split()[2:]
                feature_ids.append(int(nodes[0]))
                # the LUT words as uint32 (negative ones wrap)
                luts.append(np.asarray([int(v) for v in nodes[1:]]).astype(np.uint32)[:8])
                leaves.append(leaf[:2])
        self.eps = float(np.float32(eps))
        self.window_height, self.window_width = window_height, window_width
        self.stages_number, self.features_number, self.stumps_number = stages_number, len(blocks), len(feature_ids)
        self._blocks = blocks
        self._feature_ids = np.array(feature_ids, dtype=np.int64)
        self._leaves = np.array(leaves, dtype=np.float32).reshape(-1, 2)
        self._luts = np.array(luts, dtype=np.uint32).reshape(-1, 8)
        self._stages = np.array(stage_rows, dtype=np.int64).reshape(-1, 2)
        # a stage fails below threshold - eps, both float32 as scikit-image's C
        self._limits = np.array(thresholds, dtype=np.float32) - np.float32(eps)

    def _get_valid_scale_factors(self, min_size, max_size, scale_step):
        current_size = np.array((self.window_height, self.window_width))
        min_size = np.array(min_size, dtype=np.float32)
        max_size = np.array(max_size, dtype=np.float32)
        row_power_max = math.log(max_size[0] / current_size[0], scale_step)
        col_power_max = math.log(max_size[1] / current_size[1], scale_step)
        row_power_min = math.log(min_size[0] / current_size[0], scale_step)
        col_power_min = math.log(min_size[1] / current_size[1], scale_step)
        mn = max(row_power_min, col_power_min, 0)
        mx = min(row_power_max, col_power_max)
        return np.power(scale_step, np.arange(mn, mx), dtype=np.float32)

    def _get_contiguous_integral_image(self, img):
        from ..color import rgb2gray
        from ..transform import integral_image

        if len(img.shape) > 2:
            img = rgb2gray(img)
        int_img = integral_image(img)
        return xp_of(int_img).ascontiguousarray(int_img, dtype=np.float32)

    def detect_multi_scale(self, img, scale_factor, step_ratio, min_size, max_size, min_neighbor_number=4,
                           intersection_score_threshold=0.5):
        """Objects found at every scale from `min_size` to `max_size` (windows growing by `scale_factor`,
        placed `step_ratio` times the scale apart), grouped: a list of dicts with 'r', 'c', 'width' and
        'height', as scikit-image's (the scales in increasing order, as its single-threaded loop visits them)."""
        scale_factor, step_ratio = np.float32(scale_factor), np.float32(step_ratio)
        call = engine_for(img)
        if call.engine == CUDA:
            img = to_working(img, call.library)
        xp = call.xp
        int_img = self._get_contiguous_integral_image(img)
        rows, cols = int_img.shape
        tables = [xp.asarray(t) for t in (self._leaves, self._luts, self._stages, self._limits)]
        detections = []
        for scale in self._get_valid_scale_factors(min_size, max_size, float(scale_factor)):
            step = _c_round(scale * step_ratio)
            height = int(np.float32(self.window_height) * scale)
            width = int(np.float32(self.window_width) * scale)
            max_row, max_col = rows - height, cols - width
            if max_row < 0 or max_col < 0:
                continue
            if step < 1:   # scikit-image loops forever here
                raise ValueError(f"the search step at scale {scale} rounds to 0: raise step_ratio or scale_factor")
            # each stump's block scaled (float32 product, truncated), and its LUT's first word
            blocks = (self._blocks[self._feature_ids].astype(np.float32) * scale).astype(np.int64)
            stumps = np.concatenate([blocks, 8 * np.arange(len(blocks), dtype=np.int64)[:, None]], axis=1)
            out = xp.zeros((len(range(0, max_row, step)), len(range(0, max_col, step))), dtype=np.uint8)
            _core.cascade_windows(int_img, xp.asarray(np.ascontiguousarray(stumps)), *tables, step, out,
                                  stream=stream_ptr(int_img))
            hits = np.argwhere(out.get() if xp is not np else out)
            detections.extend((int(i) * step, int(j) * step, width, height) for i, j in hits)
        return _group_detections(detections, intersection_score_threshold, min_neighbor_number)
