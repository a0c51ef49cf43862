# Study adult-design (beyond the five papers): PML mechanisms designed from estimated
# distributions of Adult's categorical attributes, against optimal LDP and randomized response.
# Config section `adult-design` (workflow/schemas/adult-design.schema.yaml); outputs in
# results/adult-design/. Library: leakage.experiments.adult_design (stages, figures, claims).
#
# Protocol (adult-design.protocol): split (default) designs on the design part (adult.data) and
# releases the release part (adult.test); same-records designs on and releases every record.
#
# Stages (one rule each, outputs a person can open):
#   0. dataset   study_dataset        dataset.csv                the categorical columns and each record's part
#   1. estimate  estimate_priors      priors.csv                 P̂ of every attribute (design part)
#                                     release_histogram.csv      the released records' histogram (the truth)
#   2. design    design_attribute   design/<attribute>.csv     one job per attribute (parallel,
#                                          design/<attribute>_mi.csv  cluster-ready); fig2's curve
#                design_gather  mechanisms.csv             gathered (cheap, local)
#                design_mse_attribute design/<attribute>_mse.csv  pml_mse, ldp_mse (estimation-optimal), per attribute
#   3. release   release_attribute     release/<attribute>.csv    column privatized by pml at release.eps
#      estimate  estimate_release      estimates/<attribute>.csv  the histogram an analyst estimates from the release
#      frequency experiment_frequency   frequency/<attribute>.csv  MSE/coverage over repeated releases, all methods
#                experiment_frequency_gather      frequency.csv              gathered (fig5's table)
#      Monte Carlo experiment_monte_carlo        mc/<attribute>.csv         per MC attribute, per iteration
#   4. evaluate  the generic table -> plot -> claims rules (figures.smk):
#
# Figure index (figure -> function in leakage.experiments.adult_design -> what it shows):
#   fig1 -> fig1: empirical MI (67) between m true and released values vs m, MC attributes, eps = mc.eps
#   fig2 -> fig2: exact I(X;Y) under the design part's P̂ vs eps, every attribute and method
#   fig3 -> fig3: designed mechanisms as heatmaps (heatmap.attribute at heatmap.eps, pml | ldp)
#   fig4 -> fig4: exact I(X;Y) of the exact optimum (pml) vs route (44) (pml_prop2) vs m
#   fig5 -> fig5: MSE of the estimated histogram vs eps per attribute, every method (frequency.csv)
#   fig6 -> fig6: one release of frequency.histogram_attribute, estimate and 95 % intervals vs truth
#   claims.csv -> check_claims: orderings, guarantees verified without the engine, gain vs m, fig2 vs mechanisms.csv
FIGURES["adult-design"] = ["fig1", "fig2", "fig3", "fig4", "fig5", "fig6"]
FIGURE_INPUTS[("adult-design", "fig1")] = {f"mc_{a}": f"results/adult-design/mc/{a}.csv" for a in _AD["mc_attributes"]}
FIGURE_INPUTS[("adult-design", "fig4")] = FIGURE_INPUTS[("adult-design", "fig1")]
FIGURE_INPUTS[("adult-design", "fig2")] = {
    f"curve_{a}": f"results/adult-design/design/{a}_mi.csv" for a in _AD["attributes"]
}
FIGURE_INPUTS[("adult-design", "fig3")] = {
    "priors": "results/adult-design/priors.csv",
    "mechanisms": "results/adult-design/mechanisms.csv",
}
FIGURE_INPUTS[("adult-design", "fig5")] = {
    f"frequency_{a}": f"results/adult-design/frequency/{a}.csv" for a in _AD["attributes"]
}
FIGURE_INPUTS[("adult-design", "fig6")] = {
    "priors": "results/adult-design/release_histogram.csv",  # the released records' counts
    "mechanisms": "results/adult-design/mechanisms.csv",
}
CLAIMS_INPUTS["adult-design"] = FIGURE_INPUTS[("adult-design", "fig3")]
EXTRA_TARGETS["adult-design"] = [
    "results/adult-design/priors.csv",
    "results/adult-design/release_histogram.csv",
    "results/adult-design/mechanisms.csv",
    "results/adult-design/frequency.csv",
] + [f"results/adult-design/release/{a}.csv" for a in _AD["attributes"]] + [
    f"results/adult-design/estimates/{a}.csv" for a in _AD["attributes"]
]


wildcard_constraints:
    attribute="|".join(_re.escape(a) for a in _AD_CATEGORICAL),


localrules:
    design_gather,
    experiment_frequency_gather,


rule study_dataset:
    input:
        table="results/data/adult.csv",
        provenance="results/data/adult_provenance.json",
        code=script_code("adult_design_dataset.py"),
    output:
        dataset="results/adult-design/dataset.csv",
    resources:
        mem_mb=1000,
        runtime=5,
    log:
        "logs/adult-design/dataset.log",
    benchmark:
        "benchmarks/adult-design/dataset.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_dataset.py"


rule estimate_priors:
    input:
        dataset="results/adult-design/dataset.csv",
        code=script_code("adult_design_priors.py"),
    output:
        priors="results/adult-design/priors.csv",
        release="results/adult-design/release_histogram.csv",
    params:
        settings=_ad("attributes", "protocol"),
    resources:
        mem_mb=1000,
        runtime=5,
    log:
        "logs/adult-design/priors.log",
    benchmark:
        "benchmarks/adult-design/priors.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_priors.py"


rule design_attribute:
    input:
        priors="results/adult-design/priors.csv",
        code=script_code("adult_design_attribute.py"),
    output:
        mechanisms="results/adult-design/design/{attribute}.csv",
        curve="results/adult-design/design/{attribute}_mi.csv",
    params:
        settings=_ad("eps", "delta", "methods", "curve", "engine"),
    resources:
        mem_mb=2000,
        runtime=30,
    log:
        "logs/adult-design/{attribute}_design.log",
    benchmark:
        "benchmarks/adult-design/{attribute}_design.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_attribute.py"


rule design_mse_attribute:
    input:
        priors="results/adult-design/priors.csv",
        mechanisms="results/adult-design/design/{attribute}.csv",
        code=script_code("adult_design_mse.py"),
    output:
        mechanisms="results/adult-design/design/{attribute}_mse.csv",
    params:
        settings=_ad("eps", "delta", "engine", "frequency"),
    resources:
        mem_mb=2000,
        runtime=10,
    log:
        "logs/adult-design/{attribute}_mse.log",
    benchmark:
        "benchmarks/adult-design/{attribute}_mse.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_mse.py"


rule design_gather:
    input:
        parts=expand(
            "results/adult-design/design/{attribute}{part}.csv", attribute=_AD["attributes"], part=["", "_mse"]
        ),
    output:
        mechanisms="results/adult-design/mechanisms.csv",
    resources:
        mem_mb=500,
        runtime=5,
    log:
        "logs/adult-design/mechanisms.log",
    benchmark:
        "benchmarks/adult-design/mechanisms.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_gather.py"


rule release_attribute:
    input:
        dataset="results/adult-design/dataset.csv",
        priors="results/adult-design/priors.csv",
        mechanisms="results/adult-design/design/{attribute}.csv",
        code=script_code("adult_design_release.py"),
    output:
        release="results/adult-design/release/{attribute}.csv",
    params:
        settings=_ad("eps", "release", "protocol"),
        seed=config["seed"],
    resources:
        mem_mb=1000,
        runtime=5,
    log:
        "logs/adult-design/{attribute}_release.log",
    benchmark:
        "benchmarks/adult-design/{attribute}_release.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_release.py"


rule experiment_monte_carlo:
    input:
        dataset="results/adult-design/dataset.csv",
        code=script_code("adult_design_mc.py"),
    output:
        mc="results/adult-design/mc/{attribute}.csv",
    params:
        settings=_ad("delta", "methods", "mc", "protocol"),
        seed=config["seed"],
    resources:
        mem_mb=2000,
        runtime=60,
    log:
        "logs/adult-design/{attribute}_mc.log",
    benchmark:
        "benchmarks/adult-design/{attribute}_mc.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_mc.py"


rule estimate_release:
    input:
        release="results/adult-design/release/{attribute}.csv",
        mechanisms="results/adult-design/design/{attribute}.csv",
        priors="results/adult-design/release_histogram.csv",  # the truth beside the estimate
        code=script_code("adult_design_estimates.py"),
    output:
        estimates="results/adult-design/estimates/{attribute}.csv",
    params:
        settings=_ad("release"),
    resources:
        mem_mb=1000,
        runtime=5,
    log:
        "logs/adult-design/{attribute}_estimates.log",
    benchmark:
        "benchmarks/adult-design/{attribute}_estimates.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_estimates.py"


rule experiment_frequency:
    input:
        priors="results/adult-design/release_histogram.csv",  # the released records' counts
        mechanisms="results/adult-design/design/{attribute}.csv",
        mse="results/adult-design/design/{attribute}_mse.csv",
        code=script_code("adult_design_frequency.py"),
    output:
        frequency="results/adult-design/frequency/{attribute}.csv",
    params:
        settings=_ad("eps", "frequency"),
        seed=config["seed"],
    resources:
        mem_mb=2000,
        runtime=10,
    log:
        "logs/adult-design/{attribute}_frequency.log",
    benchmark:
        "benchmarks/adult-design/{attribute}_frequency.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_frequency.py"


rule experiment_frequency_gather:
    input:
        parts=expand("results/adult-design/frequency/{attribute}.csv", attribute=_AD["attributes"]),
    output:
        frequency="results/adult-design/frequency.csv",
    resources:
        mem_mb=500,
        runtime=5,
    log:
        "logs/adult-design/frequency.log",
    benchmark:
        "benchmarks/adult-design/frequency.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_design_gather.py"
