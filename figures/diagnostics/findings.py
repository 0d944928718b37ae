"""The numbers of the README's "What the truth says about the estimators".

Run: python figures/diagnostics/findings.py figures/diagnostics
"""
import glob
import sys

import numpy as np
import pandas as pd

root=sys.argv[1]
S=pd.concat([pd.read_csv(f) for f in sorted(glob.glob(f"{root}/*/summary.csv"))])
E=pd.concat([pd.read_csv(f) for f in sorted(glob.glob(f"{root}/*/errors.csv"))])
print("problems", S.problem.unique(), "cells", len(S))
# statistics are over the resolved states only (summarise_states' default): a cell without one is NaN
print("resolved fraction of states by classifier and n_labelled (1 with exact truth)")
print(S[S.strategy == "RS"].pivot_table(index="classifier",columns="n_labelled",values="resolved",sort=False)
      .round(2))
print("cells without a resolved state (NaN statistics):", int(S.spearman.isna().sum()), "of", len(S))
prac=S[~S.strategy.isin(["RS","MRI-best"])]
print("the 8 best cells of the practical strategies (Spearman)")
print(prac.nlargest(8, "spearman")[["problem","classifier","strategy","n_labelled","resolved","spearman"]]
      .to_string(index=False))
print("Spearman by strategy (mean over problems, classifiers, n; max cell)")
print(prac.groupby("strategy",sort=False).spearman.agg(["mean","median","max"]).round(3))
print("Spearman by strategy and n_labelled")
print(prac.pivot_table(index="strategy",columns="n_labelled",values="spearman",sort=False).round(2))
print("normalised shortfall by strategy (mean), frac cells <1, frac cells significantly <1 (2 SE)")
g=prac.groupby("strategy",sort=False)
print(pd.DataFrame({"mean":g.normalised_shortfall.mean(),"frac<1":g.normalised_shortfall.apply(lambda v:(v<1).mean()),
  "sig<1":g.apply(lambda d:((d.normalised_shortfall+2*d.normalised_shortfall_se)<1).mean()),
  "sig>1":g.apply(lambda d:((d.normalised_shortfall-2*d.normalised_shortfall_se)>1).mean()),
  "lambda":g.lambda_hat.mean()}).round(3))
print("by classifier: spearman mean over practical")
print(prac.pivot_table(index="strategy",columns="classifier",values="spearman",sort=False).round(2))
print("=== errors")
E["phase"]=np.where(E.n_labelled<=12,"early (<=12)","late (>=22)")
for col in ["relative_bias","corr_m_q","corr_abs_q"]:
    print(col)
    print(E.pivot_table(index="strategy",columns="phase",values=col,aggfunc="median").round(3))
for v in ["centred","independent","homoscedastic","identically_distributed"]:
    print(v, "fraction of cells holding")
    print(E.assign(h=E[v].astype(float)).pivot_table(index="strategy",columns="phase",values="h",aggfunc="mean")
          .round(2))
E["ratio"]=E.measured_shortfall/E.predicted_shortfall_iid
print("measured/predicted iid shortfall median")
print(E.pivot_table(index="strategy",columns="phase",values="ratio",aggfunc="median").round(2))
print("frac cells measured > predicted:", (E.measured_shortfall>E.predicted_shortfall_iid).mean().round(3))
print("bias sign: frac negative", (E.bias<0).mean().round(3))
print("corr_m_q by classifier")
print(E.pivot_table(index="strategy",columns="classifier",values="corr_m_q",aggfunc="mean").round(2))
