// skimage.graph's minimum cost paths: the heap as a Python-held object (it lives as long as its MCP, as
// scikit-image's does), the search with the GIL released unless a Python subclass hooks into it, and the
// traceback. Arrays are host, flat in Fortran order, made by python/ndimg/graph/_mcp.py. Also pixel_graph's
// CSR table for the default weights (python/ndimg/graph/_graph.py).
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <vector>

#include "binders.hpp"
#include "graph/mcp.hpp"
#include "graph/pixel_graph.hpp"

namespace ndimg::py {

namespace {

template <class T>
using Flat = nb::ndarray<T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Offsets = nb::ndarray<const int8_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

// Python subclasses' hooks (MCP_Flexible's methods, a goal_reached override) and MCP_Connect's id map.
// examine/update are scikit-image's noexcept hooks: an exception there is reported, not raised.
struct PyHooks {
  static constexpr bool kGoal = true, kExamine = true, kUpdate = true;
  nb::object travel_fn, goal_fn, examine_fn, update_fn, connect_fn;
  int64_t* idmap = nullptr;

  double travel(double old_cost, double new_cost, double length) {
    return nb::cast<double>(travel_fn(old_cost, new_cost, length));
  }
  int goal(int64_t index, double cumcost) {
    return goal_fn.is_valid() ? nb::cast<int>(goal_fn(index, cumcost)) : 0;
  }
  void examine(int64_t index, int64_t next, double length) {
    try {
      if (idmap) {
        const int64_t a = idmap[index], b = idmap[next];
        if (a >= 0 && b >= 0 && a != b && connect_fn.is_valid()) connect_fn(a, b, index, next);
      } else if (examine_fn.is_valid()) {
        examine_fn(index, next, length);
      }
    } catch (nb::python_error& e) {
      e.discard_as_unraisable("MCP examine_neighbor");
    }
  }
  void update(int64_t index, int64_t next, double length) {
    if (idmap) idmap[next] = idmap[index];
    if (!update_fn.is_valid()) return;
    try {
      update_fn(index, next, length);
    } catch (nb::python_error& e) {
      e.discard_as_unraisable("MCP update_node");
    }
  }
};

graph::PixelGraph pixel_graph_of(Flat<const bool>& padded, const std::vector<int64_t>& shape,
                                 Flat<const int64_t>& padded_offsets, Flat<const int64_t>& offsets,
                                 Flat<const double>& distances) {
  int64_t size = 1;
  for (int64_t n : shape) size *= n + 2;
  if (shape.empty() || int64_t(padded.shape(0)) != size || offsets.shape(0) != padded_offsets.shape(0) ||
      distances.shape(0) != offsets.shape(0))
    throw nb::value_error("pixel_graph: mismatched arrays");
  return {reinterpret_cast<const uint8_t*>(padded.data()), int(shape.size()), shape.data(), int(offsets.shape(0)),
          padded_offsets.data(), offsets.data(), distances.data()};
}

graph::McpSearch search_of(Flat<const double>& costs, const std::vector<int64_t>& shape, Offsets& offsets,
                           Flat<const int64_t>& flat_offsets) {
  int64_t size = 1;
  for (int64_t n : shape) size *= n;
  if (int64_t(costs.shape(0)) != size || offsets.shape(1) != shape.size() || flat_offsets.shape(0) != offsets.shape(0))
    throw nb::value_error("mcp: mismatched arrays");
  graph::McpSearch s{};
  s.costs = costs.data();
  s.ndim = int(shape.size());
  s.shape = shape.data();
  s.offsets = offsets.data();
  s.flat_offsets = flat_offsets.data();
  s.n_offsets = int(offsets.shape(0));
  return s;
}

nb::object opt(nb::handle h) { return h.is_none() ? nb::object() : nb::borrow(h); }

}  // namespace

NDIMG_BINDINGS(graph) {
  nb::class_<graph::McpHeap>(m, "McpHeap").def(nb::init<int64_t, int64_t>(), nb::arg("initial_capacity"),
                                                nb::arg("max_reference"));
  m.def(
      "mcp_find_costs",
      [](graph::McpHeap& heap, Flat<const double> costs, Flat<double> cumulative, Flat<int16_t> traceback,
         std::vector<int64_t> shape, Offsets offsets, Flat<const int64_t> flat_offsets, Flat<const double> lengths,
         Flat<const int64_t> starts, std::optional<Flat<const int64_t>> ends, bool all_ends, int64_t max_iter,
         std::optional<double> max_step, bool use_start_cost, int travel, nb::handle travel_fn, nb::handle goal_fn,
         nb::handle examine_fn, nb::handle update_fn, std::optional<Flat<int64_t>> idmap, nb::handle connect_fn) {
        graph::McpSearch s = search_of(costs, shape, offsets, flat_offsets);
        const int64_t size = int64_t(costs.shape(0));
        if (int64_t(cumulative.shape(0)) != size || int64_t(traceback.shape(0)) != size ||
            lengths.shape(0) != offsets.shape(0) || (idmap && int64_t(idmap->shape(0)) != size))
          throw nb::value_error("mcp_find_costs: mismatched arrays");
        auto in_range = [&](const Flat<const int64_t>& a) {
          for (size_t k = 0; k < a.shape(0); ++k)
            if (a.data()[k] < 0 || a.data()[k] >= size) throw nb::value_error("mcp_find_costs: index out of range");
        };
        in_range(starts);
        if (ends) in_range(*ends);
        s.cumulative = cumulative.data();
        s.traceback = traceback.data();
        s.lengths = lengths.data();
        s.starts = starts.data();
        s.n_starts = int64_t(starts.shape(0));
        s.ends = ends ? ends->data() : nullptr;
        s.n_ends = ends ? int64_t(ends->shape(0)) : 0;
        s.all_ends = all_ends;
        s.max_iter = max_iter;
        s.has_max_step = max_step.has_value();
        s.max_step = max_step.value_or(0.0);
        s.use_start_cost = use_start_cost;
        s.travel = graph::Travel(travel);
        const bool hooked = !travel_fn.is_none() || !goal_fn.is_none() || !examine_fn.is_none() ||
                            !update_fn.is_none() || idmap.has_value();
        if (!hooked) {
          nb::gil_scoped_release nogil;
          graph::mcp_find_costs_plain(s, heap);
          return;
        }
        if (s.travel == graph::Travel::Hook && travel_fn.is_none()) throw nb::value_error("mcp_find_costs: no travel cost");
        PyHooks hooks{opt(travel_fn), opt(goal_fn), opt(examine_fn), opt(update_fn), opt(connect_fn),
                      idmap ? idmap->data() : nullptr};
        graph::mcp_find_costs(s, heap, hooks);
      },
      nb::arg("heap"), nb::arg("costs"), nb::arg("cumulative"), nb::arg("traceback"), nb::arg("shape"),
      nb::arg("offsets"), nb::arg("flat_offsets"), nb::arg("lengths"), nb::arg("starts"), nb::arg("ends").none(),
      nb::arg("all_ends"), nb::arg("max_iter"), nb::arg("max_step").none(), nb::arg("use_start_cost"),
      nb::arg("travel"), nb::arg("travel_fn").none(), nb::arg("goal_fn").none(), nb::arg("examine_fn").none(),
      nb::arg("update_fn").none(), nb::arg("idmap").none(), nb::arg("connect_fn").none());
  m.def(
      "pixel_graph_rows",
      [](Flat<const bool> padded, std::vector<int64_t> shape, Flat<const int64_t> padded_offsets,
         Flat<const int64_t> offsets, Flat<const double> distances, Flat<int64_t> seq, Flat<int64_t> indptr) {
        const graph::PixelGraph g = pixel_graph_of(padded, shape, padded_offsets, offsets, distances);
        if (seq.shape(0) != padded.shape(0)) throw nb::value_error("pixel_graph_rows: mismatched arrays");
        nb::gil_scoped_release nogil;
        // indptr: one more than the masked pixels, which the caller counted
        return graph::pixel_graph_rows(g, seq.data(), indptr.data());
      },
      nb::arg("padded"), nb::arg("shape"), nb::arg("padded_offsets"), nb::arg("offsets"), nb::arg("distances"),
      nb::arg("seq"), nb::arg("indptr"));
  m.def(
      "pixel_graph_edges",
      [](Flat<const bool> padded, std::vector<int64_t> shape, Flat<const int64_t> padded_offsets,
         Flat<const int64_t> offsets, Flat<const double> distances, int weight,
         nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu> image, Flat<const int64_t> seq,
         Flat<const int64_t> indptr, Flat<int64_t> indices, Flat<double> data) {
        const graph::PixelGraph g = pixel_graph_of(padded, shape, padded_offsets, offsets, distances);
        static const size_t item[] = {0, 4, 8, 1, 2};
        if (weight < 0 || weight > 4 || (weight && image.itemsize() != item[weight]) ||
            seq.shape(0) != padded.shape(0) || indices.shape(0) != data.shape(0) ||
            int64_t(data.shape(0)) != indptr.data()[indptr.shape(0) - 1])
          throw nb::value_error("pixel_graph_edges: mismatched arrays");
        nb::gil_scoped_release nogil;
        graph::pixel_graph_edges(g, graph::EdgeWeight(weight), image.data(), seq.data(), indptr.data(),
                                 indices.data(), data.data());
      },
      nb::arg("padded"), nb::arg("shape"), nb::arg("padded_offsets"), nb::arg("offsets"), nb::arg("distances"),
      nb::arg("weight"), nb::arg("image"), nb::arg("seq"), nb::arg("indptr"), nb::arg("indices"), nb::arg("data"));
  auto fortran = [](auto costs, Flat<double> out) {
    if (out.shape(0) != costs.shape(0) * costs.shape(1)) throw nb::value_error("mcp_fortran_costs: mismatched arrays");
    nb::gil_scoped_release nogil;
    graph::mcp_fortran_costs(costs.data(), int64_t(costs.shape(0)), int64_t(costs.shape(1)), out.data());
  };
  m.def("mcp_fortran_costs", [fortran](nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu> costs,
                                       Flat<double> out) { fortran(costs, out); },
        nb::arg("costs"), nb::arg("out"));
  m.def("mcp_fortran_costs", [fortran](nb::ndarray<const double, nb::ndim<2>, nb::c_contig, nb::device::cpu> costs,
                                       Flat<double> out) { fortran(costs, out); },
        nb::arg("costs"), nb::arg("out"));
  m.def(
      "mcp_traceback",
      [](Flat<const int16_t> traceback, std::vector<int64_t> shape, Offsets offsets, Flat<const int64_t> flat_offsets,
         int64_t end) {
        int64_t size = 1;
        for (int64_t n : shape) size *= n;
        if (int64_t(traceback.shape(0)) != size || end < 0 || end >= size || offsets.shape(1) != shape.size() ||
            flat_offsets.shape(0) != offsets.shape(0))
          throw nb::value_error("mcp_traceback: mismatched arrays");
        graph::McpSearch s{};
        s.traceback = const_cast<int16_t*>(traceback.data());
        s.ndim = int(shape.size());
        s.shape = shape.data();
        s.offsets = offsets.data();
        s.flat_offsets = flat_offsets.data();
        s.n_offsets = int(offsets.shape(0));
        auto* path = new std::vector<int64_t>();
        {
          nb::gil_scoped_release nogil;
          graph::mcp_traceback(s, end, *path);
        }
        nb::capsule owner(path, [](void* p) noexcept { delete static_cast<std::vector<int64_t>*>(p); });
        const size_t dims[2] = {path->size() / shape.size(), shape.size()};
        return nb::ndarray<nb::numpy, int64_t, nb::ndim<2>>(path->data(), 2, dims, owner);
      },
      nb::arg("traceback"), nb::arg("shape"), nb::arg("offsets"), nb::arg("flat_offsets"), nb::arg("end"));
}

}  // namespace ndimg::py
