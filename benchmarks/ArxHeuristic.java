import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;

import org.deidentifier.arx.*;
import org.deidentifier.arx.ARXConfiguration.AnonymizationAlgorithm;
import org.deidentifier.arx.ARXConfiguration.SearchStepSemantics;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.aggregates.StatisticsEquivalenceClasses;
import org.deidentifier.arx.criteria.*;

/**
 * ARX 3.9.2's heuristic search (Lightning, "best effort, bottom-up") as a peer that runs one
 * anonymization per request, so that benchmarks/bench_lattice_heuristic.py can alternate ARX and
 * anonlab in one run.
 *
 * Usage: java -cp build:arx/lib/* ArxHeuristic DIR QI1,QI2,... SENSITIVE
 * DIR holds data.csv (';'-separated, a header, no quoting) and one hierarchy per quasi-identifier,
 * hierarchy_QI.csv (ARX's format: leaf;level 1;...;*). The CSV and the hierarchies are read once,
 * before any timing. Then, per line read from stdin,
 * "MODEL PARAMETER SUPPRESSION STEP_LIMIT TIME_LIMIT_MS" (MODEL k-anonymity or
 * distinct-l-diversity, PARAMETER its k or l), it builds a fresh Data (the quasi-identifiers with
 * their hierarchies, SENSITIVE sensitive for l-diversity and insensitive otherwise, every other
 * column insensitive), configures ARX's default Loss, the suppression limit and
 * AnonymizationAlgorithm.BEST_EFFORT_BOTTOM_UP with the step limit counted in checks
 * (SearchStepSemantics.CHECKS) and the time limit, times ARXAnonymizer.anonymize() (which includes
 * ARX's dictionary encoding) and writes one line:
 * "ms=... levels=a,b,... classes=... suppressed=... loss=... checked=... optimal=..." (levels in
 * the QI order given; loss as Double.toString, every digit; optimal: ARX's getOptimumFound()).
 * An empty line or end of input ends it.
 */
public class ArxHeuristic {
    public static void main(String[] args) throws Exception {
        String dir = args[0];
        String[] qis = args[1].split(",");
        String sensitive = args[2];
        List<String> lines = Files.readAllLines(Paths.get(dir, "data.csv"), StandardCharsets.UTF_8);
        List<String[]> table = new ArrayList<>(lines.size());
        for (String line : lines) if (!line.isEmpty()) table.add(line.split(";", -1));
        Map<String, String[][]> hier = new HashMap<>();
        for (String qi : qis)
            hier.put(qi, Hierarchy.create(new File(dir, "hierarchy_" + qi + ".csv"), StandardCharsets.UTF_8, ';').getHierarchy());
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        out.printf("ready java=%s rows=%d%n", System.getProperty("java.version"), table.size() - 1);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.isBlank()) {
            String[] request = line.trim().split("\\s+");
            String model = request[0];
            int parameter = Integer.parseInt(request[1]);
            double supp = Double.parseDouble(request[2]);
            int steps = Integer.parseInt(request[3]);
            int millis = Integer.parseInt(request[4]);
            boolean diversity = model.startsWith("distinct");

            Data data = Data.create(table);
            DataDefinition def = data.getDefinition();
            for (String column : table.get(0)) def.setAttributeType(column, AttributeType.INSENSITIVE_ATTRIBUTE);
            for (String qi : qis) def.setAttributeType(qi, Hierarchy.create(hier.get(qi)));
            if (diversity) def.setAttributeType(sensitive, AttributeType.SENSITIVE_ATTRIBUTE);

            ARXConfiguration cfg = ARXConfiguration.create();
            if (diversity) cfg.addPrivacyModel(new DistinctLDiversity(sensitive, parameter));
            else cfg.addPrivacyModel(new KAnonymity(parameter));
            cfg.setSuppressionLimit(supp);
            cfg.setAlgorithm(AnonymizationAlgorithm.BEST_EFFORT_BOTTOM_UP);
            cfg.setHeuristicSearchStepLimit(steps, SearchStepSemantics.CHECKS);
            cfg.setHeuristicSearchTimeLimit(millis);

            ARXAnonymizer anonymizer = new ARXAnonymizer();
            long t0 = System.nanoTime();
            ARXResult res = anonymizer.anonymize(data, cfg);
            long t1 = System.nanoTime();
            ARXLattice.ARXNode opt = res.getGlobalOptimum();
            long checked = res.getProcessStatistics().getTransformationsChecked();
            if (opt == null) {
                out.printf("ms=%.3f levels=none checked=%d%n", (t1 - t0) / 1e6, checked);
                continue;
            }
            String[] order = opt.getQuasiIdentifyingAttributes();
            int[] tr = opt.getTransformation();
            StringBuilder levels = new StringBuilder();
            for (int i = 0; i < qis.length; i++) {
                int at = Arrays.asList(order).indexOf(qis[i]);
                levels.append(tr[at]).append(i + 1 < qis.length ? "," : "");
            }
            StatisticsEquivalenceClasses ec = res.getOutput(opt, false).getStatistics().getEquivalenceClassStatistics();
            out.printf("ms=%.3f levels=%s classes=%d suppressed=%d loss=%s checked=%d optimal=%b%n",
                    (t1 - t0) / 1e6, levels, ec.getNumberOfEquivalenceClasses(),
                    ec.getNumberOfSuppressedRecords(), opt.getHighestScore().toString(), checked,
                    res.getOptimumFound());
        }
    }
}
