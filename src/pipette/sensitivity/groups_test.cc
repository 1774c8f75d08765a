#include "pipette/sensitivity/groups.h"

#include <gtest/gtest.h>

namespace pipette::sensitivity {
namespace {

model::GgufFile TwoLayers() {
  model::GgufFile f;
  auto add = [&](std::string name, std::vector<uint64_t> dims) {
    model::GgufTensor t;
    t.name = std::move(name);
    t.dims = std::move(dims);
    f.tensors.push_back(t);
  };
  add("token_embd.weight", {8, 100});
  for (int l = 0; l < 2; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    add(p + "attn_norm.weight", {8});  // 1-D: never quantized
    add(p + "attn_q.weight", {8, 8});
    add(p + "attn_k.weight", {8, 4});
    add(p + "attn_output.weight", {8, 8});
    add(p + "ffn_up.weight", {8, 16});
    add(p + "ffn_down.weight", {16, 8});
  }
  add("output_norm.weight", {8});
  return f;  // no output.weight: tied to the embeddings
}

TEST(Groups, LayersAndKindsOfATiedModel) {
  const auto groups = GroupsOf(TwoLayers(), {});
  std::vector<std::string> names;
  for (const auto& g : groups) names.push_back(g.name);
  EXPECT_EQ(names, (std::vector<std::string>{"layer 0", "layer 1", "attention", "feed-forward",
                                             "embeddings"}));
  EXPECT_EQ(groups[0].n_tensors, 5);
  EXPECT_EQ(groups[0].n_weights, 64u + 32 + 64 + 128 + 128);
  EXPECT_EQ(groups[2].n_tensors, 6);  // attn_q, attn_k, attn_output of both layers, not norms
  EXPECT_EQ(groups[4].n_weights, 800u);
}

TEST(Groups, OutputIsOnlyTheOutputTensor) {
  model::GgufFile f = TwoLayers();
  model::GgufTensor out;
  out.name = "output.weight";
  out.dims = {8, 100};
  f.tensors.push_back(out);
  GroupOptions o;
  o.layers = false;
  const auto groups = GroupsOf(f, o);
  ASSERT_EQ(groups.back().name, "output");
  EXPECT_EQ(groups.back().n_tensors, 1);  // not blk.N.attn_output.weight
  EXPECT_EQ(groups.back().n_weights, 800u);
  // Layer 1's pattern does not reach layer 10.
  model::GgufTensor deep;
  deep.name = "blk.10.attn_q.weight";
  deep.dims = {8, 8};
  f.tensors.push_back(deep);
  o.layers = true;
  o.kinds = false;
  o.only_layers = {1};
  EXPECT_EQ(GroupsOf(f, o).front().n_tensors, 5);
}

TEST(Groups, OnlySomeLayers) {
  GroupOptions o;
  o.kinds = false;
  o.only_layers = {1, 5};
  const auto groups = GroupsOf(TwoLayers(), o);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].name, "layer 1");
  EXPECT_EQ(groups[0].pattern, "^blk\\.1\\.");
}

TEST(Groups, LayerLists) {
  EXPECT_EQ(*ParseLayerList("0-2,7"), (std::vector<int>{0, 1, 2, 7}));
  EXPECT_EQ(*ParseLayerList("3"), (std::vector<int>{3}));
  EXPECT_FALSE(ParseLayerList("2-1").ok());
  auto a = ParseLayerList("a");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().message, "'a' is not a layer number or range (e.g. 0-3,7)");
  EXPECT_EQ(a.error().exit_code, 2);
  EXPECT_FALSE(ParseLayerList("").ok());
}

TEST(Groups, LayersTheModelDoesNotHaveAreNamed) {
  EXPECT_EQ(LayerCount(TwoLayers()), 2);
  EXPECT_EQ(LayerCount(model::GgufFile{}), 0);
  auto missing = [](const std::vector<int>& layers, int n) {
    Status st = HasLayers(layers, n);
    return st ? std::string("(all there)") : st.error().message;
  };
  EXPECT_EQ(missing({0, 1}, 2), "(all there)");
  EXPECT_EQ(missing({}, 2), "(all there)");
  EXPECT_EQ(missing({1, 2}, 2), "has 2 layers (0-1), so there is no layer 2");
  EXPECT_EQ(missing({5, 0, 2, 3, 3}, 2), "has 2 layers (0-1), so there are no layers 2-3, 5");
  EXPECT_EQ(missing({0}, 0), "has no layers, so there is no layer 0");
}

}  // namespace
}  // namespace pipette::sensitivity
